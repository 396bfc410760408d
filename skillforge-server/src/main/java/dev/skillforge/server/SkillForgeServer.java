package dev.skillforge.server;

import dev.skillforge.core.agent.AgentLoop;
import dev.skillforge.core.agent.TurnLimits;
import dev.skillforge.server.cache.PrefixGuard;
import dev.skillforge.server.config.SecuritySettings;
import dev.skillforge.server.conversation.ConversationService;
import dev.skillforge.server.conversation.ConversationTimings;
import dev.skillforge.server.conversation.InstanceIdentity;
import dev.skillforge.server.exec.CommandRouter;
import dev.skillforge.server.exec.CommandStats;
import dev.skillforge.server.exec.ProcessRunner;
import dev.skillforge.server.exec.Sandbox;
import dev.skillforge.server.exec.Workspace;
import dev.skillforge.server.http.ApiServer;
import dev.skillforge.server.http.ConversationRoutes;
import dev.skillforge.server.http.HttpSecurity;
import dev.skillforge.server.http.SkillRoutes;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.metrics.ServerMetrics;
import dev.skillforge.server.provider.ConfiguredProvider;
import dev.skillforge.server.provider.ProviderRegistry;
import dev.skillforge.server.skill.SkillCommands;
import dev.skillforge.server.skill.SkillStore;
import dev.skillforge.server.skill.SystemPrompt;
import dev.skillforge.server.store.ConversationStore;
import dev.skillforge.server.store.JdbcConversationStore;
import dev.skillforge.server.store.StoreWriter;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.function.UnaryOperator;

/**
 * The whole server wired together: skills under the data folder, the conversation store and its
 * background writer, the agent loop on the configured provider, and the HTTP API. Used by the
 * {@code serve} command, the tests and the benchmarks, so all three run the same thing.
 */
public final class SkillForgeServer implements AutoCloseable {

    public final SkillStore skills;
    public final JdbcConversationStore database;
    public final ConversationStore store;
    public final StoreWriter writer;
    public final ConversationService conversations;
    public final ApiServer api;
    /** What happened to the model's commands (run, refused, killed…). */
    public final CommandStats commandStats = new CommandStats();
    /** Where allowed programs run: {@code dataDir/workspace}. */
    public final Workspace workspace;
    /** Runs, iterations, commands, tokens, cache breaks, latencies ({@code GET /metrics}). */
    public final ServerMetrics metrics = new ServerMetrics();
    private final ProviderRegistry providers;
    private final InstanceIdentity identity;

    /** A server whose only provider is {@code provider} (tests, benchmarks). */
    public SkillForgeServer(String host, int port, Path dataDir, TurnLimits turnLimits, ConfiguredProvider provider,
                            JdbcConversationStore database, UnaryOperator<ConversationStore> wrapStore) throws IOException {
        this(host, port, dataDir, turnLimits, ProviderRegistry.single(provider), database, wrapStore);
    }

    /**
     * @param turnLimits how far one turn may go (model calls, answer size, commands)
     * @param providers every configured provider, owned by the server from here on (closed with it);
     *                  turns use the default one
     * @param database  the store, owned by the server from here on (closed with it)
     * @param wrapStore a decorator between the server and the database (identity in production;
     *                  injected latency or outages in tests and benchmarks)
     */
    public SkillForgeServer(String host, int port, Path dataDir, TurnLimits turnLimits, ProviderRegistry providers,
                            JdbcConversationStore database, UnaryOperator<ConversationStore> wrapStore) throws IOException {
        this(host, port, dataDir, turnLimits, providers, database, wrapStore, SecuritySettings.defaults());
    }

    /**
     * @param security the API token, CORS origins, and what the model's commands may run, in which sandbox
     * @throws IllegalArgumentException when {@code host} is not a loopback address and there is no token, or
     *                                  programs are allowed and their sandbox does not work here
     */
    public SkillForgeServer(String host, int port, Path dataDir, TurnLimits turnLimits, ProviderRegistry providers,
                            JdbcConversationStore database, UnaryOperator<ConversationStore> wrapStore,
                            SecuritySettings security) throws IOException {
        security.checkBinding(host); // before anything starts
        Files.createDirectories(dataDir);
        this.workspace = Workspace.at(dataDir.resolve("workspace"));
        Sandbox sandbox = Sandbox.forPrograms(security.sandbox(), security.commands(), workspace); // probed before anything starts
        this.providers = providers;
        ConfiguredProvider provider = providers.defaultProvider();
        this.skills = new SkillStore(dataDir.resolve("skills"));
        this.database = database;
        this.store = wrapStore.apply(database);
        this.writer = new StoreWriter(store);
        this.identity = InstanceIdentity.of(dataDir);
        ProviderModels models = new ProviderModels(providers, new CommandRouter(new SkillCommands(skills),
                new ProcessRunner(security.commands(), workspace, sandbox, security.limits(), commandStats), commandStats), turnLimits, metrics,
                PrefixGuard.strictByProperty());
        AgentLoop loop = models.statelessLoop(); // stateless /api/agent turns use the default, without a prefix guard
        this.conversations = new ConversationService(store, writer, SystemPrompt.TEXT, models, identity.id(),
                ConversationTimings.DEFAULTS, InstantSource.system());
        conversations.recover();
        conversations.startMaintenance();
        this.api = ApiServer.start(host, port, loop, SystemPrompt.TEXT,
                new ApiServer.ProviderInfo(provider.name(), provider.modelName(), provider.simulated()), providers.listings(),
                new ConversationRoutes(conversations), new SkillRoutes(skills),
                new ApiServer.Observability(() -> metrics.runObserver(provider.name(), provider.modelName(), ServerMetrics.STATELESS),
                        metrics::scrape),
                new HttpSecurity(security), () -> {
                    var counts = Json.object();
                    commandStats.snapshot().forEach(counts::put);
                    return counts.put("allowed", security.commands().toString()).put("sandbox", security.sandbox().toString());
                });
    }

    public int port() {
        return api.port();
    }

    /** Every configured provider by name. */
    public ProviderRegistry providers() {
        return providers;
    }

    /** Stops taking requests, stops running turns (recorded as cancelled), flushes every write, then closes. */
    @Override
    public void close() throws Exception {
        api.close();
        conversations.close();
        writer.close();
        database.close();
        providers.close();
        identity.close();
    }
}
