package dev.skillforge.server;

import dev.skillforge.core.agent.TurnLimits;
import dev.skillforge.server.access.TeamSettings;
import dev.skillforge.server.config.SecuritySettings;
import dev.skillforge.server.http.PeopleRoutes;
import dev.skillforge.server.http.PreferenceRoutes;
import dev.skillforge.server.conversation.ConversationHost;
import dev.skillforge.server.conversation.Conversations;
import dev.skillforge.server.conversation.Forks;
import dev.skillforge.server.conversation.OtherInstances;
import dev.skillforge.server.conversation.Turns;
import dev.skillforge.server.conversation.ConversationTimings;
import dev.skillforge.server.error.ConfigurationException;
import dev.skillforge.server.exec.CommandStats;
import dev.skillforge.server.exec.Workspaces;
import dev.skillforge.server.http.ApiServer;
import dev.skillforge.server.fleet.Fleet;
import dev.skillforge.server.http.ConversationRoutes;
import dev.skillforge.server.http.EventJson;
import dev.skillforge.server.http.HttpSecurity;
import dev.skillforge.server.http.SkillRoutes;
import dev.skillforge.server.http.StatelessAgentRoute;
import dev.skillforge.server.http.StatusRoutes;
import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.mcp.McpHttpDoor;
import dev.skillforge.server.mcp.SkillForgeMcp;
import dev.skillforge.server.metrics.ServerMetrics;
import dev.skillforge.server.provider.ConfiguredProvider;
import dev.skillforge.server.provider.ProviderRegistry;
import dev.skillforge.server.skill.SkillLimits;
import dev.skillforge.server.skill.SkillStore;
import dev.skillforge.server.skill.SystemPrompt;
import dev.skillforge.server.store.ConversationStore;
import dev.skillforge.server.store.StoreWriter;
import dev.skillforge.server.trace.Tracing;
import dev.skillforge.server.web.PortInUseException;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The whole server wired together: the {@link SkillForgeCore} (skills and their versions, the
 * conversation store and its background writer, the agent loop on the configured providers) behind
 * the HTTP API, with the MCP endpoint {@code /mcp} beside it. Used by the {@code serve} command, the
 * tests and the benchmarks, so all three run the same thing.
 */
public final class SkillForgeServer implements AutoCloseable {

    /** How long a drained server waits at most for the streams of ended turns to send their last events. */
    private static final Duration LAST_EVENTS = Duration.ofSeconds(1);

    private final SkillForgeCore core;
    private final SkillForgeMcp mcp;
    private final ConversationRoutes conversationRoutes;
    private final Optional<Fleet> fleet;
    private final Turns turns;
    private final ApiServer api;

    private SkillForgeServer(SkillForgeCore core, SkillForgeMcp mcp, ConversationRoutes conversationRoutes, Optional<Fleet> fleet,
                             Turns turns, ApiServer api) {
        this.core = core;
        this.mcp = mcp;
        this.fleet = fleet;
        this.turns = turns;
        this.conversationRoutes = conversationRoutes;
        this.api = api;
    }

    /** A server on the data folder {@code dataDir}; everything else has a default but the providers and the storage. */
    public static Builder builder(Path dataDir) {
        return new Builder(dataDir);
    }

    /**
     * How a server is made: a {@link SkillForgeCore} and its address. The providers and the storage are handed over
     * (closed with the server), and a start that fails halfway (a port in use, a sandbox that does not work here)
     * closes everything it had opened before it throws.
     */
    public static final class Builder {
        private final SkillForgeCore.Builder core;
        private String host = "127.0.0.1";
        private int port;

        private Builder(Path dataDir) {
            this.core = SkillForgeCore.builder(dataDir);
        }

        /** Where to listen; {@code 127.0.0.1} and any free port by default. */
        public Builder address(String listenHost, int listenPort) {
            this.host = Objects.requireNonNull(listenHost);
            this.port = listenPort;
            return this;
        }

        /** @see SkillForgeCore.Builder#turnLimits */
        public Builder turnLimits(TurnLimits limits) {
            core.turnLimits(limits);
            return this;
        }

        /** @see SkillForgeCore.Builder#providers */
        public Builder providers(ProviderRegistry registry) {
            core.providers(registry);
            return this;
        }

        /** One provider, the only one (tests, benchmarks). */
        public Builder provider(ConfiguredProvider provider) {
            return providers(ProviderRegistry.single(provider));
        }

        /** @see SkillForgeCore.Builder#storage */
        public Builder storage(Storage kept) {
            core.storage(kept);
            return this;
        }

        /** @see SkillForgeCore.Builder#wrapStore */
        public Builder wrapStore(UnaryOperator<ConversationStore> wrap) {
            core.wrapStore(wrap);
            return this;
        }

        /** The API token, CORS origins, allowed hosts, connection limits, and what the model's commands may run. */
        public Builder security(SecuritySettings settings) {
            core.security(settings);
            return this;
        }

        /** @see SkillForgeCore.Builder#conversationTimings */
        public Builder conversationTimings(ConversationTimings timings) {
            core.conversationTimings(timings);
            return this;
        }

        /** @see SkillForgeCore.Builder#team */
        public Builder team(Optional<TeamSettings> settings) {
            core.team(settings);
            return this;
        }

        /** @see SkillForgeCore.Builder#tracing */
        public Builder tracing(Tracing traces) {
            core.tracing(traces);
            return this;
        }

        /** @see SkillForgeCore.Builder#skillLimits */
        public Builder skillLimits(SkillLimits limits) {
            core.skillLimits(limits);
            return this;
        }

        /** @see SkillForgeCore.Builder#clock */
        public Builder clock(InstantSource source) {
            core.clock(source);
            return this;
        }

        /**
         * Starts the core, then the HTTP API and {@code /mcp} on the address.
         *
         * @throws ConfigurationException when the host is not a loopback address and there is no token, or programs are
         *                                allowed and their sandbox does not work here
         * @throws PortInUseException     when the address is taken
         */
        public SkillForgeServer start() throws IOException {
            SecuritySettings security = core.security();
            try {
                security.checkBinding(host, core.team().isPresent()); // before anything starts
            } catch (RuntimeException e) {
                core.abandon(e);
                throw e;
            }
            SkillForgeCore started = core.start();
            Opened opened = new Opened();
            opened.add(started);
            try {
                ConversationHost host = started.conversationHost();
                Optional<Fleet> fleet = started.storage().notifications().map(notifications -> opened.add(new Fleet(
                        notifications, host::localRun, host::stopHere, EventJson::write)));
                Turns turns = started.turns(fleet.map(OtherInstances.class::cast));
                SkillForgeMcp mcp = opened.add(new SkillForgeMcp(started.conversations(), turns, started.skills(),
                        started.providers().names(), started.providers().defaultName()));
                ConversationRoutes conversationRoutes = new ConversationRoutes(host, started.conversations(), turns, started.forks(),
                        started.attachments());
                ApiServer api = startApi(started, mcp, conversationRoutes, security);
                opened.keep();
                return new SkillForgeServer(started, mcp, conversationRoutes, fleet, turns, api);
            } catch (RuntimeException e) {
                opened.closeAll(e);
                throw e;
            }
        }

        private ApiServer startApi(SkillForgeCore started, SkillForgeMcp mcp, ConversationRoutes conversationRoutes,
                                   SecuritySettings security) {
            ProviderRegistry providers = started.providers();
            ConfiguredProvider provider = providers.defaultProvider();
            ServerMetrics metrics = started.metrics();
            HttpSecurity httpSecurity = new HttpSecurity(security.http(), started.team());
            Supplier<JsonNode> commandStats = () -> {
                var counts = Json.object();
                started.commandStats().snapshot().forEach(counts::put);
                return counts.put("allowed", security.commands().toString()).put("sandbox", security.sandbox().toString());
            };
            return ApiServer.start(host, port, httpSecurity, List.of(
                    new StatusRoutes(new StatusRoutes.ProviderInfo(provider.name(), provider.modelName(), provider.simulated()),
                            providers.listings(), conversationRoutes::ready, commandStats, metrics::scrape),
                    new StatelessAgentRoute(started.stateless(), SystemPrompt.of(security.web().enabled()), conversationRoutes,
                            started::statelessObserver),
                    conversationRoutes,
                    new SkillRoutes(started.skills(), started.skillLimits()),
                    new PeopleRoutes(started.team(), started.spending()),
                    new PreferenceRoutes(started.preferences()),
                    config -> McpHttpDoor.mount(config, mcp, httpSecurity),
                    started.tracing()::mount));
        }
    }

    public int port() {
        return api.port();
    }

    /** The HTTP API's routes ({@link ApiServer#routes()}); {@code /mcp} is a servlet beside them. */
    public List<String> routes() {
        return api.routes();
    }

    /** Everything but the doors: conversations, skills, the store, the metrics. */
    public SkillForgeCore core() {
        return core;
    }

    public SkillStore skills() {
        return core.skills();
    }

    /** Where everything is kept; its conversations are beneath any decorator. */
    public Storage storage() {
        return core.storage();
    }

    public StoreWriter writer() {
        return core.writer();
    }

    /** People's conversations by id. */
    public Conversations conversations() {
        return core.conversations();
    }

    /** The turns of people's conversations, here or on another instance of the fleet. */
    public Turns turns() {
        return turns;
    }

    /** The conversations this instance holds: their leases, recovery, draining. */
    public ConversationHost conversationHost() {
        return core.conversationHost();
    }

    public Forks forks() {
        return core.forks();
    }

    /** What happened to the model's commands (run, refused, killed…). */
    public CommandStats commandStats() {
        return core.commandStats();
    }

    /** Where allowed programs run: a workspace per conversation. */
    public Workspaces workspaces() {
        return core.workspaces();
    }

    /** Runs, iterations, commands, tokens, cache breaks, latencies ({@code GET /metrics}). */
    public ServerMetrics metrics() {
        return core.metrics();
    }

    /** Every configured provider by name. */
    public ProviderRegistry providers() {
        return core.providers();
    }

    /**
     * The first half of a graceful stop, for rolling restarts: {@code /readyz} answers 503 and no new
     * turn starts here; idle conversations are handed back at once; running turns may finish within
     * {@code grace} (their clients get every event), each handed back as it ends. Call {@link #close()}
     * after it.
     *
     * @return whether every running turn finished in time
     */
    public boolean drain(Duration grace) throws InterruptedException {
        long deadline = System.nanoTime() + grace.toNanos();
        boolean finished = core.conversationHost().drain(grace);
        // The clients of the turns that just ended are sent their last event before the server closes.
        conversationRoutes.awaitStreams(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())).plus(LAST_EVENTS));
        return finished;
    }

    /** Stops taking requests, stops running turns (recorded as cancelled), flushes every write, then closes. */
    @Override
    public void close() {
        mcp.close();
        api.close();
        if (fleet.isPresent()) {
            fleet.get().close();
        }
        core.close();
    }
}
