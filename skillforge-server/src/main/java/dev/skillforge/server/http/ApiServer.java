package dev.skillforge.server.http;

import dev.skillforge.server.web.Servers;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.core.agent.EventSink;
import dev.skillforge.core.transcript.Entry;
import dev.skillforge.core.transcript.Transcript;
import dev.skillforge.server.conversation.MessageLimit;
import dev.skillforge.server.document.DocumentException;
import dev.skillforge.server.document.Vision;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.provider.ProviderRegistry;
import dev.skillforge.server.run.AgentRun;
import dev.skillforge.server.conversation.StatelessAgent;
import dev.skillforge.server.run.RunEventLog;
import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.staticfiles.JavalinStaticResourceHandler;
import io.javalin.http.staticfiles.Location;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The HTTP API: {@code POST /api/agent} (a turn, answered as Server-Sent Events),
 * {@code GET /api/providers} (what is configured, never a key) and {@code GET /healthz}; the chat
 * page's static files at {@code /} and {@code /webjars/…}, with security headers (CSP, nosniff, no
 * referrer) on every response. Every refusal is JSON {@code {"error":{"code":…,"message":…}}} and is
 * sent before any stream starts; errors never carry stack traces.
 */
public final class ApiServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ApiServer.class);
    /** Marks a response whose JSON error is written, so the 404 handler leaves it alone. */
    private static final String ERROR_WRITTEN = "skillforge.error-written";

    /**
     * The page's Content-Security-Policy: only this server's own scripts, styles and connections, no
     * inline script or style, no plugins, no framing. Model output is untrusted and is rendered into
     * the page (sanitised); this is the second line of defence.
     */
    public static final String CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; "
            + "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
            + "form-action 'self'";

    /** What {@code /healthz} says about the provider. */
    public record ProviderInfo(String name, String model, boolean simulated) {
    }

    /**
     * What the server measures: an observer for each stateless run (made when it starts, given the new message) and the
     * metrics text {@code GET /metrics} answers ({@code null}: no such endpoint).
     */
    public record Observability(BiFunction<String, String, EventSink> statelessRunObserver, Supplier<String> metrics) {
    }

    private final StatelessAgent stateless;
    private final String systemPrompt;
    private final ProviderInfo provider;
    private final List<ProviderRegistry.Listing> providers;
    private final Javalin app;
    private final Observability observability;

    private final ConversationRoutes conversations;

    /** What {@code /healthz} says about the commands (counts), to an authenticated caller; {@code null} for nothing. */
    private final Supplier<? extends JsonNode> commandStats;

    private ApiServer(String host, int port, StatelessAgent stateless, String systemPrompt, ProviderInfo provider,
                      List<ProviderRegistry.Listing> providers, ConversationRoutes conversations, SkillRoutes skills,
                      Observability observability, HttpSecurity security, Supplier<? extends JsonNode> commandStats,
                      Consumer<JavalinConfig> otherDoors) {
        this.commandStats = commandStats;
        this.stateless = stateless;
        this.observability = observability;
        this.conversations = conversations;
        this.systemPrompt = systemPrompt;
        this.provider = provider;
        this.providers = List.copyOf(providers);
        this.app = Servers.start(host, port, config -> {
            config.http.prefer405over404 = true;
            // The chat page (src/main/resources/public) at /, its libraries from WebJars at /webjars/…, served by
            // Javalin's own handler: it reads them through the class loader, where Jetty's default mounts the 16,500
            // entries of the fat jar as a zip file system at start (about 200 ms of a one-second start).
            config.resourceHandler(new JavalinStaticResourceHandler());
            config.staticFiles.add(files -> {
                files.hostedPath = "/";
                files.directory = "/public";
                files.location = Location.CLASSPATH;
            });
            config.staticFiles.enableWebjars();
            security.register(config); // authentication, other sites, Jetty's limits: before every route
            config.routes.get("/healthz", this::health);
            config.routes.get("/readyz", this::readiness);
            config.routes.get("/api/providers", this::providers);
            config.routes.post("/api/agent", this::agent);
            if (observability.metrics() != null) {
                config.routes.get("/metrics", ctx -> ctx.contentType("text/plain; version=0.0.4; charset=utf-8")
                        .result(observability.metrics().get()));
            }
            conversations.register(config);
            skills.register(config);
            otherDoors.accept(config);
            config.routes.exception(ApiException.class, (e, ctx) -> error(ctx, e.status(), e.code(), e.getMessage(), e.problems()));
            config.routes.exception(DocumentException.class, (e, ctx) -> error(ctx, switch (e.kind()) {
                case INVALID -> 400;
                case TOO_LARGE -> 413;
                case UNSUPPORTED -> 415;
                case BUSY -> 503;
                case STOPPED -> 499; // the client has gone and reads no answer; nginx logs the same case as 499
            }, e.code(), e.getMessage()));
            config.routes.exception(Exception.class, (e, ctx) -> {
                log.error("unexpected failure on {} {}", ctx.method(), ctx.path(), e);
                error(ctx, 500, "internal_error", "The server failed to handle this request");
            });
            config.routes.error(404, ctx -> {
                if (ctx.attribute(ERROR_WRITTEN) == null) {
                    error(ctx, 404, "not_found", "No such endpoint: " + ctx.method() + " " + ctx.path());
                }
            });
            config.routes.error(405, ctx -> error(ctx, 405, "method_not_allowed", ctx.method() + " is not allowed on " + ctx.path()));
        });
    }

    /**
     * @param providers    every configured provider, for {@code GET /api/providers}
     * @param observability the metrics: an observer per stateless run, and {@code GET /metrics}
     * @param security     the token, CORS origins and limits ({@link HttpSecurity})
     * @param commandStats the command counts {@code /healthz} shows an authenticated caller
     * @param otherDoors   mounts what is served beside the API on the same server (the MCP endpoint), behind the same security
     */
    public static ApiServer start(String host, int port, StatelessAgent stateless, String systemPrompt, ProviderInfo provider,
                                  List<ProviderRegistry.Listing> providers, ConversationRoutes conversations, SkillRoutes skills,
                                  Observability observability, HttpSecurity security, Supplier<? extends JsonNode> commandStats,
                                  Consumer<JavalinConfig> otherDoors) {
        return new ApiServer(host, port, stateless, systemPrompt, provider, providers, conversations, skills, observability, security,
                commandStats, otherDoors);
    }

    public int port() {
        return app.port();
    }

    /**
     * Every route the API registered, as {@code METHOD /path} ({@code {param}} for path parameters, also those that
     * take slashes): what /openapi.json must describe.
     */
    public List<String> routes() {
        return app.unsafe.internalRouter.allHttpHandlers().stream().map(handler -> handler.endpoint)
                .filter(endpoint -> endpoint.method.isHttpMethod())
                .map(endpoint -> endpoint.method.name() + " " + endpoint.path.replaceAll("<([^>]+)>", "{$1}")).sorted().toList();
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
        boolean ready = conversations.ready();
        ctx.status(ready ? 200 : 503).contentType("application/json")
                .result(Json.write(Json.object().put("status", ready ? "ready" : "stopping")));
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

    /**
     * A stateless turn lives as long as its client: if the client leaves, the run is stopped. With a
     * {@code conversationId} the turn is the conversation's, and belongs to the server.
     */
    private void agent(Context ctx) throws Exception {
        AgentRequest request = AgentRequest.from(RequestBodies.readJsonObject(ctx.req(), RequestBodies.MAX_UPLOAD_BODY_BYTES),
                messages -> ConversationRoutes.readDocuments(ctx, messages));
        if (request.conversationId() != null) {
            // the service checks the message
            conversations.streamTurn(ctx, request.conversationId(), request.newMessage(), request.newDocuments());
            return;
        }
        MessageLimit.check(request.newMessage());
        stateless.requireSeen(request.messages());
        if (!conversations.ready()) {
            throw new ApiException(503, "server_stopping", "This server instance is stopping; send the request again");
        }
        String person = Callers.of(ctx).personId();
        stateless.budgets().requireRoom(person);
        SseWriter out = new SseWriter(ctx.res());
        AtomicLong ids = new AtomicLong();
        String key = StatelessAgent.key(request.messages().getFirst().content());
        AgentRun run = AgentRun.start(stateless.loop(), new Transcript(request.messages()), systemPrompt, key,
                stateless.commands().apply(person, key), new RunEventLog(ids::incrementAndGet),
                stateless.budgets().counting(person, stateless.prices(), observability.statelessRunObserver().apply(person, request.newMessage())),
                last -> { });
        boolean followedToTheEnd = false;
        try {
            followedToTheEnd = out.follow(run.events(), 0);
        } finally {
            if (!followedToTheEnd) {
                run.cancel("the client disconnected");
            }
        }
    }

    static void error(Context ctx, int status, String code, String message) {
        error(ctx, status, code, message, List.of());
    }

    /** The error body, with {@code problems} listed when there are some (never for a 404, which says nothing more). */
    static void error(Context ctx, int status, String code, String message, List<String> problems) {
        ctx.attribute(ERROR_WRITTEN, true);
        ObjectNode body = Json.object();
        if (status == 404) {
            code = "not_found";
            if (HttpSecurity.hidesWhatIsMissing(ctx)) {
                message = HttpSecurity.NOT_FOUND_MESSAGE; // one answer for an unknown id, name or path and a missing token
            }
        }
        ObjectNode error = body.putObject("error").put("code", code).put("message", message);
        if (!problems.isEmpty() && status != 404) {
            problems.forEach(error.putArray("problems")::add);
        }
        ctx.status(status).contentType("application/json").result(Json.write(body));
    }

    @Override
    public void close() {
        conversations.close(); // the pages' change streams end now, not at their next ping
        Servers.stop(app, "the HTTP server");
    }
}
