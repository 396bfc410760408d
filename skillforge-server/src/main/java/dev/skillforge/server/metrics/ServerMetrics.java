package dev.skillforge.server.metrics;

import dev.skillforge.core.agent.AgentEvent;
import dev.skillforge.core.agent.AgentLoop;
import dev.skillforge.core.agent.EventSink;
import dev.skillforge.core.agent.Usage;
import dev.skillforge.server.cache.PrefixGuard;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The server's metrics, through Micrometer, scraped at {@code GET /metrics} in Prometheus' text format.
 * Everything about runs is recorded from their event streams ({@link #runObserver}), so the core
 * knows nothing of it:
 *
 * <ul>
 *   <li>{@code skillforge_runs_total{provider,model,mode,status}}: ended runs (mode {@code conversation}
 *       or {@code stateless}; status {@code complete}, {@code cancelled} or {@code failed})</li>
 *   <li>{@code skillforge_iterations_total{provider,model}}: iterations that ended (model calls answered)</li>
 *   <li>{@code skillforge_commands_total{status}}: commands by status ({@code completed}, {@code failed},
 *       {@code cancelled})</li>
 *   <li>{@code skillforge_tokens_total{provider,model,kind}}: tokens by kind {@code input}, {@code output},
 *       {@code cached} (read from the cache), {@code cache_write} (written to it), as the provider reported them
 *       (unknown figures add nothing)</li>
 *   <li>{@code skillforge_cache_breaks_total}: requests that did not start with the
 *       previous one of their conversation ({@link PrefixGuard})</li>
 *   <li>{@code skillforge_context_cuts_total{provider,model}}: context cuts, when a conversation outgrew
 *       its model's context window (a new cached prefix starts, by design)</li>
 *   <li>{@code skillforge_time_to_first_token_seconds{provider,model}}: run start to its first text or
 *       reasoning, a histogram</li>
 *   <li>{@code skillforge_run_duration_seconds{provider,model,mode}}: a histogram</li>
 *   <li>{@code skillforge_active_runs}: runs going on now</li>
 * </ul>
 */
public final class ServerMetrics implements PrefixGuard.Observer {

    public static final String CONVERSATION = "conversation";
    public static final String STATELESS = "stateless";

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final AtomicInteger active = new AtomicInteger();
    private final Counter cacheBreaks;
    /** Per provider, model and mode: the meters of their runs. */
    private final Map<List<String>, Meters> meters = new ConcurrentHashMap<>();
    private final Map<String, Counter> commandCounters = new ConcurrentHashMap<>();

    public ServerMetrics() {
        Gauge.builder("skillforge.active.runs", active, AtomicInteger::get)
                .description("Runs (turns) going on now").register(registry);
        cacheBreaks = Counter.builder("skillforge.cache.breaks")
                .description("Requests that did not start with the previous request of their conversation").register(registry);
    }

    /** The Prometheus text exposition of every metric. */
    public String scrape() {
        return registry.scrape();
    }

    /** Counts a cache break (the {@link PrefixGuard}'s finding). */
    @Override
    public void cacheBreak(@SuppressWarnings("unused") PrefixGuard.Break found) {
        cacheBreaks.increment();
    }

    /** Cache breaks counted so far, over every provider. */
    public long cacheBreaks() {
        return (long) cacheBreaks.count();
    }

    /**
     * An observer for one run that starts now: it counts the run as active until its last event
     * ({@code done} or {@code error}) and records what its events say. Call on the thread that starts the run.
     */
    public EventSink runObserver(String provider, String model, String mode) {
        return new RunObserver(meters.computeIfAbsent(List.of(provider, model, mode), key -> new Meters(provider, model, mode)));
    }

    /**
     * The meters of the runs of one provider, model and mode, each resolved from the registry on its first use
     * and kept: an event costs a map lookup by a constant key, not a meter id built, sorted and looked up. A meter
     * appears in the scrape once first used, as before (registering it again would return the same meter).
     */
    private final class Meters {
        private final String provider;
        private final String model;
        private final String mode;
        private final Map<String, Meter> resolved = new ConcurrentHashMap<>();

        Meters(String provider, String model, String mode) {
            this.provider = provider;
            this.model = model;
            this.mode = mode;
        }

        Counter iterations() {
            return (Counter) resolved.computeIfAbsent("iterations", name -> Counter.builder("skillforge.iterations")
                    .description("Iterations that ended (model calls answered)")
                    .tag("provider", provider).tag("model", model).register(registry));
        }

        Counter contextCuts() {
            return (Counter) resolved.computeIfAbsent("context.cuts", name -> Counter.builder("skillforge.context.cuts")
                    .description("Context cuts: conversations whose view was cut to fit the model's context window")
                    .tag("provider", provider).tag("model", model).register(registry));
        }

        Timer timeToFirstToken() {
            return (Timer) resolved.computeIfAbsent("time.to.first.token", name -> Timer.builder("skillforge.time.to.first.token")
                    .description("From a run's start to its first text or reasoning")
                    .tag("provider", provider).tag("model", model).publishPercentileHistogram().register(registry));
        }

        /** {@code kind} is one of a few constants: the map key needs no building. */
        Counter tokens(String kind) {
            return (Counter) resolved.computeIfAbsent(kind, name -> Counter.builder("skillforge.tokens")
                    .description("Tokens as the providers reported them")
                    .tag("provider", provider).tag("model", model).tag("kind", kind).register(registry));
        }

        Counter runs(String status) {
            return (Counter) resolved.computeIfAbsent("runs." + status, name -> Counter.builder("skillforge.runs")
                    .description("Runs (turns) that ended")
                    .tag("provider", provider).tag("model", model).tag("mode", mode).tag("status", status).register(registry));
        }

        Timer runDuration() {
            return (Timer) resolved.computeIfAbsent("run.duration", name -> Timer.builder("skillforge.run.duration")
                    .description("How long runs took")
                    .tag("provider", provider).tag("model", model).tag("mode", mode).publishPercentileHistogram().register(registry));
        }
    }

    private Counter commands(String status) {
        return commandCounters.computeIfAbsent(status, name -> Counter.builder("skillforge.commands").description("Commands by status")
                .tag("status", status).register(registry));
    }

    private final class RunObserver implements EventSink {
        private final Meters meters;
        private final long startedAt = System.nanoTime();
        private boolean firstToken;
        private boolean ended;

        RunObserver(Meters meters) {
            this.meters = meters;
            active.incrementAndGet();
        }

        @Override
        public void accept(AgentEvent event) {
            switch (event) {
                case AgentEvent.Text e -> firstToken();
                case AgentEvent.Reasoning e -> firstToken();
                case AgentEvent.IterationEnd e -> meters.iterations().increment();
                case AgentEvent.ToolResult e -> commands(commandStatus(e)).increment();
                case AgentEvent.UsageReport e -> tokens(e.usage());
                // One event per stored cut, also for the first request after a restart.
                case AgentEvent.ContextCut e -> meters.contextCuts().increment();
                case AgentEvent.Done e -> end(switch (e.stopReason()) {
                    case COMPLETE, MAX_ITERATIONS -> "complete";
                    case CANCELLED -> "cancelled";
                });
                case AgentEvent.Error e -> end("failed");
                default -> {
                    // raw content, tool calls and starts, tool output and sources are not measured
                }
            }
        }

        private void firstToken() {
            if (!firstToken) {
                firstToken = true;
                meters.timeToFirstToken().record(Duration.ofNanos(System.nanoTime() - startedAt));
            }
        }

        private void tokens(Usage usage) {
            add("input", usage.inputTokens());
            add("output", usage.outputTokens());
            add("cached", usage.cacheReadTokens());
            add("cache_write", usage.cacheWriteTokens());
        }

        private void add(String kind, Long tokens) {
            if (tokens != null) {
                meters.tokens(kind).increment(tokens);
            }
        }

        private void end(String status) {
            if (ended) {
                return;
            }
            ended = true;
            active.decrementAndGet();
            meters.runs(status).increment();
            meters.runDuration().record(Duration.ofNanos(System.nanoTime() - startedAt));
        }

        private static String commandStatus(AgentEvent.ToolResult result) {
            if (result.exitCode() == AgentLoop.NOT_RUN_EXIT_CODE && result.result().startsWith("[not run")) {
                return "cancelled";
            }
            return result.exitCode() == 0 ? "completed" : "failed";
        }
    }
}
