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
import dev.skillforge.server.metrics.ServerMetrics;
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
 * What every door of SkillForge serves from, with no door of its own: the skills under the data
 * folder, the conversation store and its background writer, the conversations on the configured
 * providers, the command runner and the metrics. {@link SkillForgeServer} puts the HTTP API (and
 * {@code /mcp}) in front of it; {@code skillforge mcp} puts the MCP stdio transport in front of it.
 */
public final class SkillForgeCore implements AutoCloseable {

    public final SkillStore skills;
    public final JdbcConversationStore database;
    public final ConversationStore store;
    public final StoreWriter writer;
    public final ConversationService conversations;
    /** What happened to the model's commands (run, refused, killed…). */
    public final CommandStats commandStats = new CommandStats();
    /** Where allowed programs run: {@code dataDir/workspace}. */
    public final Workspace workspace;
    /** Runs, iterations, commands, tokens, cache breaks, latencies ({@code GET /metrics}). */
    public final ServerMetrics metrics = new ServerMetrics();
    /** The loop of stateless {@code /api/agent} turns: the default provider, without a prefix guard. */
    public final AgentLoop statelessLoop;
    private final ProviderRegistry providers;
    private final InstanceIdentity identity;

    /**
     * @param providers every configured provider, owned from here on (closed with this); new conversations use the default one
     * @param database  the store, owned from here on (closed with this)
     * @param wrapStore a decorator between the conversations and the database (identity in production;
     *                  injected latency or outages in tests and benchmarks)
     * @param security  what the model's commands may run, in which sandbox
     * @throws IllegalArgumentException when programs are allowed and their sandbox does not work here
     */
    public SkillForgeCore(Path dataDir, TurnLimits turnLimits, ProviderRegistry providers, JdbcConversationStore database,
                          UnaryOperator<ConversationStore> wrapStore, SecuritySettings security) throws IOException {
        Files.createDirectories(dataDir);
        this.workspace = Workspace.at(dataDir.resolve("workspace"));
        Sandbox sandbox = Sandbox.forPrograms(security.sandbox(), security.commands(), workspace); // probed before anything starts
        this.providers = providers;
        this.skills = new SkillStore(dataDir.resolve("skills"));
        this.database = database;
        this.store = wrapStore.apply(database);
        this.writer = new StoreWriter(store);
        this.identity = InstanceIdentity.of(dataDir);
        ProviderModels models = new ProviderModels(providers, new CommandRouter(new SkillCommands(skills),
                new ProcessRunner(security.commands(), workspace, sandbox, security.limits(), commandStats), commandStats), turnLimits, metrics,
                PrefixGuard.strictByProperty());
        this.statelessLoop = models.statelessLoop();
        this.conversations = new ConversationService(store, writer, SystemPrompt.TEXT, models, identity.id(),
                ConversationTimings.DEFAULTS, InstantSource.system());
        conversations.recover();
        conversations.startMaintenance();
    }

    /** Every configured provider by name. */
    public ProviderRegistry providers() {
        return providers;
    }

    /** Stops running turns (recorded as cancelled), flushes every write, then closes the store and the providers. */
    @Override
    public void close() throws Exception {
        conversations.close();
        writer.close();
        database.close();
        providers.close();
        identity.close();
    }
}
