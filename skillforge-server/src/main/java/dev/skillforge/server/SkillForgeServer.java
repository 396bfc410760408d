package dev.skillforge.server;

import dev.skillforge.core.agent.TurnLimits;
import dev.skillforge.server.config.SecuritySettings;
import dev.skillforge.server.conversation.ConversationService;
import dev.skillforge.server.exec.CommandStats;
import dev.skillforge.server.exec.Workspace;
import dev.skillforge.server.http.ApiServer;
import dev.skillforge.server.http.ConversationRoutes;
import dev.skillforge.server.http.HttpSecurity;
import dev.skillforge.server.http.SkillRoutes;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.mcp.McpHttpDoor;
import dev.skillforge.server.mcp.SkillForgeMcp;
import dev.skillforge.server.metrics.ServerMetrics;
import dev.skillforge.server.provider.ConfiguredProvider;
import dev.skillforge.server.provider.ProviderRegistry;
import dev.skillforge.server.skill.SkillStore;
import dev.skillforge.server.skill.SystemPrompt;
import dev.skillforge.server.store.ConversationStore;
import dev.skillforge.server.store.JdbcConversationStore;
import dev.skillforge.server.store.StoreWriter;

import java.io.IOException;
import java.nio.file.Path;
import java.util.function.UnaryOperator;

/**
 * The whole server wired together: the {@link SkillForgeCore} (skills under the data folder, the
 * conversation store and its background writer, the agent loop on the configured providers) behind
 * the HTTP API, with the MCP endpoint {@code /mcp} beside it. Used by the {@code serve} command, the
 * tests and the benchmarks, so all three run the same thing.
 */
public final class SkillForgeServer implements AutoCloseable {

    public final SkillStore skills;
    public final JdbcConversationStore database;
    public final ConversationStore store;
    public final StoreWriter writer;
    public final ConversationService conversations;
    public final ApiServer api;
    /** What happened to the model's commands (run, refused, killed…). */
    public final CommandStats commandStats;
    /** Where allowed programs run: {@code dataDir/workspace}. */
    public final Workspace workspace;
    /** Runs, iterations, commands, tokens, cache breaks, latencies ({@code GET /metrics}). */
    public final ServerMetrics metrics;
    private final SkillForgeCore core;
    private final SkillForgeMcp mcp;

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
        this.core = new SkillForgeCore(dataDir, turnLimits, providers, database, wrapStore, security);
        this.skills = core.skills;
        this.database = core.database;
        this.store = core.store;
        this.writer = core.writer;
        this.conversations = core.conversations;
        this.commandStats = core.commandStats;
        this.workspace = core.workspace;
        this.metrics = core.metrics;
        this.mcp = new SkillForgeMcp(conversations, skills, providers.names(), providers.defaultName());
        ConfiguredProvider provider = providers.defaultProvider();
        HttpSecurity httpSecurity = new HttpSecurity(security);
        this.api = ApiServer.start(host, port, core.statelessLoop, SystemPrompt.TEXT,
                new ApiServer.ProviderInfo(provider.name(), provider.modelName(), provider.simulated()), providers.listings(),
                new ConversationRoutes(conversations), new SkillRoutes(skills),
                new ApiServer.Observability(() -> metrics.runObserver(provider.name(), provider.modelName(), ServerMetrics.STATELESS),
                        metrics::scrape),
                httpSecurity, () -> {
                    var counts = Json.object();
                    commandStats.snapshot().forEach(counts::put);
                    return counts.put("allowed", security.commands().toString()).put("sandbox", security.sandbox().toString());
                }, config -> McpHttpDoor.mount(config, mcp, httpSecurity));
    }

    public int port() {
        return api.port();
    }

    /** Every configured provider by name. */
    public ProviderRegistry providers() {
        return core.providers();
    }

    /** Stops taking requests, stops running turns (recorded as cancelled), flushes every write, then closes. */
    @Override
    public void close() throws Exception {
        mcp.close();
        api.close();
        core.close();
    }
}
