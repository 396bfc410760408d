package dev.skillforge.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.server.document.Vision;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.provider.ProviderRegistry;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;

import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * What the server says about itself: {@code GET /healthz} (liveness, open to probes), {@code GET /readyz} (readiness),
 * {@code GET /api/providers} (what is configured, never a key) and {@code GET /metrics} when there are metrics.
 */
public final class StatusRoutes implements Door {

    /** What {@code /healthz} says about the provider. */
    public record ProviderInfo(String name, String model, boolean simulated) {
    }

    private final ProviderInfo provider;
    private final List<ProviderRegistry.Listing> providers;
    private final BooleanSupplier ready;
    private final Supplier<? extends JsonNode> commandStats;
    private final Supplier<String> metrics;

    /**
     * @param provider     the default provider, for {@code /healthz}
     * @param providers    every configured provider, for {@code /api/providers}
     * @param ready        whether this instance takes new turns ({@code /readyz})
     * @param commandStats the command counts {@code /healthz} shows an authenticated caller ({@code null} inside: none)
     * @param metrics      the Prometheus text {@code /metrics} answers; {@code null}: no such endpoint
     */
    public StatusRoutes(ProviderInfo provider, List<ProviderRegistry.Listing> providers, BooleanSupplier ready,
                        Supplier<? extends JsonNode> commandStats, Supplier<String> metrics) {
        this.provider = provider;
        this.providers = List.copyOf(providers);
        this.ready = ready;
        this.commandStats = commandStats;
        this.metrics = metrics;
    }

    @Override
    public void register(JavalinConfig config) {
        config.routes.get("/healthz", this::health);
        config.routes.get("/readyz", this::readiness);
        config.routes.get("/api/providers", this::providers);
        if (metrics != null) {
            config.routes.get("/metrics", ctx -> ctx.contentType("text/plain; version=0.0.4; charset=utf-8").result(metrics.get()));
        }
    }

    private void health(Context ctx) {
        ObjectNode body = Json.object().put("status", "ok");
        if (!HttpSecurity.isAuthenticated(ctx)) {
            ctx.contentType("application/json").result(Json.write(body)); // open to probes, but says nothing more
            return;
        }
        body.putObject("provider").put("name", provider.name()).put("model", provider.model()).put("simulated", provider.simulated());
        JsonNode commands = commandStats.get();
        if (commands != null) {
            body.set("commands", commands);
        }
        ctx.contentType("application/json").result(Json.write(body));
    }

    /**
     * Readiness, for a load balancer or orchestrator: 200 while this instance takes new turns, 503 once
     * it is stopping (it still serves the turns it runs; {@code /healthz} stays 200 for liveness).
     */
    private void readiness(Context ctx) {
        boolean isReady = ready.getAsBoolean();
        ctx.status(isReady ? 200 : 503).contentType("application/json")
                .result(Json.write(Json.object().put("status", isReady ? "ready" : "stopping")));
    }

    /** The configured providers: name, preset, model, whether simulated, whether a key is present. Never a key. */
    private void providers(Context ctx) {
        ObjectNode body = Json.object();
        providers.stream().filter(ProviderRegistry.Listing::isDefault).findFirst()
                .ifPresent(listing -> body.put("default", listing.name()));
        var list = body.putArray("providers");
        for (ProviderRegistry.Listing listing : providers) {
            ObjectNode item = list.addObject().put("name", listing.name()).put("preset", listing.preset()).put("model", listing.model())
                    .put("simulated", listing.simulated()).put("keyPresent", listing.keyPresent()).put("default", listing.isDefault())
                    .put("contextWindow", listing.contextWindow());
            item.set("vision", visionJson(listing.vision()));
        }
        ctx.contentType("application/json").result(Json.write(body));
    }

    /** What a page needs to refuse an image when it is picked rather than after Send: whether the model sees, and the API's limits. */
    private static ObjectNode visionJson(Vision vision) {
        ObjectNode json = Json.object().put("sees", vision.sees());
        if (vision.sees()) {
            vision.mediaTypes().forEach(json.putArray("mediaTypes")::add);
            json.put("maxImageBytes", vision.maxImageBytes()).put("maxSide", vision.maxSide()).put("maxImages", vision.maxImages())
                    .put("maxTotalBytes", vision.maxTotalBytes());
        }
        return json;
    }
}
