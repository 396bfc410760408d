package dev.skillforge.server;

import dev.skillforge.core.agent.AgentLoop;
import dev.skillforge.server.conversation.ConversationService;
import dev.skillforge.server.http.ApiServer;
import dev.skillforge.server.http.ConversationRoutes;
import dev.skillforge.server.provider.RetryPolicy;
import dev.skillforge.server.provider.StreamingHttp;
import dev.skillforge.server.provider.openai.OpenAiChatRequest;
import dev.skillforge.server.provider.openai.OpenAiCompatibleProvider;
import dev.skillforge.server.provider.sim.SimProviderServer;
import dev.skillforge.server.provider.sim.SimResponder;
import dev.skillforge.server.skill.SkillCommands;
import dev.skillforge.server.skill.SkillStore;
import dev.skillforge.server.skill.SystemPrompt;
import dev.skillforge.server.store.ConversationStore;
import dev.skillforge.server.store.JdbcConversationStore;
import dev.skillforge.server.store.StoreWriter;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.UnaryOperator;

/**
 * A real server for tests: the simulated provider on a loopback port, the OpenAI-compatible client
 * talking to it over HTTP, the skill commands on a temporary folder, conversations in an SQLite file
 * there (optionally behind a store decorator), and the API on another port.
 */
public final class ServerHarness implements AutoCloseable {

    public static final RetryPolicy FAST_RETRY = new RetryPolicy(2, Duration.ofMillis(20), Duration.ofSeconds(1));

    public final SimProviderServer sim;
    public final SkillStore skills;
    public final JdbcConversationStore database;
    public final ConversationStore store;
    public final StoreWriter writer;
    public final ConversationService conversations;
    public final ApiServer api;

    public ServerHarness(Path dataDir, SimResponder responder) throws IOException {
        this(dataDir, responder, Duration.ofSeconds(10), FAST_RETRY, UnaryOperator.identity());
    }

    public ServerHarness(Path dataDir, SimResponder responder, Duration providerTimeout, RetryPolicy retry) throws IOException {
        this(dataDir, responder, providerTimeout, retry, UnaryOperator.identity());
    }

    /** @param wrapStore puts a decorator (latency, outages) between the server and the real store */
    public ServerHarness(Path dataDir, SimResponder responder, Duration providerTimeout, RetryPolicy retry,
                         UnaryOperator<ConversationStore> wrapStore) throws IOException {
        sim = SimProviderServer.startOnLoopback(responder);
        skills = new SkillStore(dataDir.resolve("skills"));
        var provider = new OpenAiCompatibleProvider(new OpenAiCompatibleProvider.Settings(sim.baseUrl(), "test-key",
                SimProviderServer.MODEL, true, new StreamingHttp.Timeouts(providerTimeout, providerTimeout), retry));
        var loop = new AgentLoop(provider, new SkillCommands(skills), AgentLoop.DEFAULT_MAX_ITERATIONS);
        database = JdbcConversationStore.open(null, null, null, dataDir);
        store = wrapStore.apply(database);
        writer = new StoreWriter(store);
        conversations = new ConversationService(store, writer, loop,
                new ConversationService.Defaults(SystemPrompt.TEXT, "sim", SimProviderServer.MODEL));
        api = ApiServer.start("127.0.0.1", 0, loop, SystemPrompt.TEXT,
                new ApiServer.ProviderInfo("sim", SimProviderServer.MODEL, true),
                new ConversationRoutes(conversations, OpenAiChatRequest::messages));
    }

    public String url(String path) {
        return "http://127.0.0.1:" + api.port() + path;
    }

    @Override
    public void close() {
        api.close();
        conversations.close();
        writer.close();
        database.close();
        sim.close();
    }
}
