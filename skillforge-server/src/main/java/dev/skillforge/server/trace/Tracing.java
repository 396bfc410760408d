package dev.skillforge.server.trace;

import dev.skillforge.core.agent.EventSink;
import dev.skillforge.server.cache.PrefixGuard;
import dev.skillforge.server.error.ConfigurationException;
import io.javalin.config.JavalinConfig;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import jakarta.servlet.DispatcherType;
import org.eclipse.jetty.ee10.servlet.FilterHolder;

import java.util.EnumSet;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Traces of turns over OTLP/HTTP (docs/tracing.md), configured by the OpenTelemetry SDK's standard variables
 * ({@code OTEL_EXPORTER_OTLP_ENDPOINT}, {@code OTEL_EXPORTER_OTLP_HEADERS}, {@code OTEL_SERVICE_NAME}, …). With no
 * endpoint set, nothing is built: no SDK, no exporter thread, and every hook is a no-op.
 *
 * <p>Spans come from each turn's event stream ({@link #runObserver}, beside the metrics' observer) and from the
 * prefix guard's verdicts ({@link #guardObserver}); an incoming {@code traceparent} is continued ({@link #mount}).
 * Prompts, answers and commands' text go into spans only with {@value #CONTENT_VARIABLE}{@code =true}.
 */
public final class Tracing implements AutoCloseable {

    /** The operator's setting that puts prompts, answers, commands and their output into spans. */
    public static final String CONTENT_VARIABLE = "FORGE_TRACE_CONTENT";
    public static final String INSTRUMENTATION = "dev.skillforge";

    private static final Tracing OFF = new Tracing(null, false);

    private final OpenTelemetrySdk sdk;
    private final Tracer tracer;
    private final boolean content;
    /** Turns running now, by conversation id: where the prefix guard's verdicts go. */
    private final Map<String, TurnTrace> running = new ConcurrentHashMap<>();
    private final AtomicBoolean closed = new AtomicBoolean();

    private Tracing(OpenTelemetrySdk sdk, boolean content) {
        this.sdk = sdk;
        this.tracer = sdk == null ? null : sdk.getTracer(INSTRUMENTATION);
        this.content = content;
    }

    /** No tracing. */
    public static Tracing off() {
        return OFF;
    }

    /**
     * Tracing as the environment asks: on when {@code OTEL_EXPORTER_OTLP_ENDPOINT} or
     * {@code OTEL_EXPORTER_OTLP_TRACES_ENDPOINT} is set (and neither {@code OTEL_SDK_DISABLED=true} nor
     * {@code OTEL_TRACES_EXPORTER=none}); every other {@code OTEL_*} variable as the SDK reads it.
     *
     * @throws ConfigurationException for a wrong {@value #CONTENT_VARIABLE} or {@code OTEL_*} value
     */
    public static Tracing fromEnvironment(Map<String, String> env) {
        boolean content = flag(env, CONTENT_VARIABLE);
        if (!exportConfigured(env)) {
            return OFF;
        }
        Map<String, String> properties = new HashMap<>();
        // SkillForge's defaults (OTLP over HTTP, traces only), below whatever the variables say.
        properties.put("otel.service.name", "skillforge");
        properties.put("otel.exporter.otlp.protocol", "http/protobuf");
        properties.put("otel.metrics.exporter", "none");
        properties.put("otel.logs.exporter", "none");
        env.forEach((name, value) -> {
            if (name.startsWith("OTEL_")) {
                properties.put(name.toLowerCase(Locale.ROOT).replace('_', '.'), value);
            }
        });
        try {
            OpenTelemetrySdk sdk = AutoConfiguredOpenTelemetrySdk.builder().addPropertiesSupplier(() -> properties)
                    .disableShutdownHook().build().getOpenTelemetrySdk();
            return new Tracing(sdk, content);
        } catch (RuntimeException e) {
            throw new ConfigurationException("The OpenTelemetry settings (OTEL_*) are not usable: " + e.getMessage());
        }
    }

    static boolean exportConfigured(Map<String, String> env) {
        if ("true".equalsIgnoreCase(env.getOrDefault("OTEL_SDK_DISABLED", "").strip())
                || "none".equalsIgnoreCase(env.getOrDefault("OTEL_TRACES_EXPORTER", "").strip())) {
            return false;
        }
        return !env.getOrDefault("OTEL_EXPORTER_OTLP_ENDPOINT", "").isBlank()
                || !env.getOrDefault("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").isBlank();
    }

    private static boolean flag(Map<String, String> env, String name) {
        String value = env.getOrDefault(name, "").strip().toLowerCase(Locale.ROOT);
        return switch (value) {
            case "", "false", "0", "no" -> false;
            case "true", "1", "yes" -> true;
            default -> throw new ConfigurationException(name + " must be true or false, was " + env.get(name));
        };
    }

    /** Whether spans are made and exported. */
    public boolean enabled() {
        return sdk != null;
    }

    /** Whether prompts, answers and commands go into spans ({@value #CONTENT_VARIABLE}). */
    public boolean capturesContent() {
        return content;
    }

    /**
     * An observer for one turn that starts now, under the trace of the request that starts it (its {@code traceparent});
     * call on that request's thread.
     *
     * @param preset         the provider's preset ({@code openai}, {@code gemini}…), for {@code gen_ai.provider.name}
     * @param conversationId the conversation, or {@code null} for a stateless turn
     * @param person         the id of the person the turn is for
     * @param message        the person's new message (in spans only with {@value #CONTENT_VARIABLE})
     */
    public EventSink runObserver(String provider, String preset, String model, String conversationId, String person, String mode,
                                 String message) {
        if (sdk == null) {
            return event -> { };
        }
        var turn = new TurnTrace.Turn(provider, preset, model, conversationId, person, mode, message);
        TurnTrace trace = new TurnTrace(tracer, turn, content, Context.current(), ended -> {
            if (conversationId != null) {
                running.remove(conversationId, ended);
            }
        });
        if (conversationId != null) {
            running.put(conversationId, trace);
        }
        return trace;
    }

    /** Puts the prefix guard's verdicts on the running turn's model call, then tells {@code next} (the metrics). */
    public PrefixGuard.Observer guardObserver(PrefixGuard.Observer next) {
        if (sdk == null) {
            return next;
        }
        return new PrefixGuard.Observer() {
            @Override
            public void cacheBreak(PrefixGuard.Break found) {
                next.cacheBreak(found);
            }

            @Override
            public void verdict(String conversation, PrefixGuard.Verdict verdict, PrefixGuard.Break found) {
                TurnTrace turn = running.get(conversation);
                if (turn != null) {
                    turn.cacheVerdict(verdict, found);
                }
                next.verdict(conversation, verdict, found);
            }
        };
    }

    /** Continues an incoming {@code traceparent} on every request of the server; nothing when tracing is off. */
    public void mount(JavalinConfig config) {
        if (sdk == null) {
            return;
        }
        config.jetty.modifyServletContextHandler(context -> {
            FilterHolder filter = new FilterHolder(new TraceContextFilter(sdk.getPropagators().getTextMapPropagator()));
            filter.setAsyncSupported(true);
            context.addFilter(filter, "/*", EnumSet.of(DispatcherType.REQUEST));
        });
    }

    /** Exports what is left (waiting up to 10 seconds) and stops the exporter; once. */
    @Override
    public void close() {
        if (sdk != null && closed.compareAndSet(false, true)) {
            CompletableResultCode shutdown = sdk.shutdown();
            shutdown.join(10, TimeUnit.SECONDS);
        }
    }
}
