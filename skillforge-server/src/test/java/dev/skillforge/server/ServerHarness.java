package dev.skillforge.server;

import dev.skillforge.core.agent.AgentLoop;
import dev.skillforge.server.config.ProviderPreset;
import dev.skillforge.server.config.SecuritySettings;
import dev.skillforge.server.conversation.ConversationService;
import dev.skillforge.server.provider.ConfiguredProvider;
import dev.skillforge.server.provider.ProviderRegistry;
import dev.skillforge.server.provider.RetryPolicy;
import dev.skillforge.server.provider.StreamingHttp;
import dev.skillforge.server.provider.openai.OpenAiChatRequest;
import dev.skillforge.server.provider.openai.OpenAiCompatibleProvider;
import dev.skillforge.server.provider.sim.SimProviderServer;
import dev.skillforge.server.provider.sim.SimResponder;
import dev.skillforge.server.skill.SkillStore;
import dev.skillforge.server.store.ConversationStore;
import dev.skillforge.server.store.JdbcConversationStore;
import dev.skillforge.server.store.StoreWriter;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A real server for tests: the simulated provider on a loopback port, the OpenAI-compatible client
 * talking to it over HTTP, the skill commands on a temporary folder, conversations in an SQLite file
 * there (optionally behind a store decorator), and the API on another port.
 */
public final class ServerHarness implements AutoCloseable {

    /** A second configured provider, on the same simulated server, with its own model name. */
    public static final String OTHER_PROVIDER = "other";
    public static final String OTHER_MODEL = "other-model";

    public static final RetryPolicy FAST_RETRY = new RetryPolicy(2, Duration.ofMillis(20), Duration.ofSeconds(1));

    public final SimProviderServer sim;
    public final SkillForgeServer server;
    public final SkillStore skills;
    public final JdbcConversationStore database;
    public final StoreWriter writer;
    public final ConversationService conversations;
    private boolean cacheBreaksExpected;

    public ServerHarness(Path dataDir, SimResponder responder) throws IOException {
        this(dataDir, responder, Duration.ofSeconds(10), FAST_RETRY, UnaryOperator.identity());
    }

    public ServerHarness(Path dataDir, SimResponder responder, Duration providerTimeout, RetryPolicy retry) throws IOException {
        this(dataDir, responder, providerTimeout, retry, UnaryOperator.identity());
    }

    /** @param wrapStore puts a decorator (latency, outages) between the server and the real store */
    public ServerHarness(Path dataDir, SimResponder responder, Duration providerTimeout, RetryPolicy retry,
                         UnaryOperator<ConversationStore> wrapStore) throws IOException {
        this(dataDir, responder, providerTimeout, retry, wrapStore, SecuritySettings.defaults());
    }

    /** @param security the API token, CORS origins and command allow-list (the defaults: none of them) */
    public ServerHarness(Path dataDir, SimResponder responder, SecuritySettings security) throws IOException {
        this(dataDir, responder, Duration.ofSeconds(10), FAST_RETRY, UnaryOperator.identity(), security);
    }

    /** @param contextWindow the providers' context window in tokens, small to make conversations outgrow it */
    public ServerHarness(Path dataDir, SimResponder responder, int contextWindow) throws IOException {
        this(dataDir, responder, Duration.ofSeconds(10), FAST_RETRY, UnaryOperator.identity(), SecuritySettings.defaults(), contextWindow);
    }

    public ServerHarness(Path dataDir, SimResponder responder, Duration providerTimeout, RetryPolicy retry,
                         UnaryOperator<ConversationStore> wrapStore, SecuritySettings security) throws IOException {
        this(dataDir, responder, providerTimeout, retry, wrapStore, security, ProviderPreset.SIM.defaultContextWindow());
    }

    private ServerHarness(Path dataDir, SimResponder responder, Duration providerTimeout, RetryPolicy retry,
                          UnaryOperator<ConversationStore> wrapStore, SecuritySettings security, int contextWindow) throws IOException {
        sim = SimProviderServer.startOnLoopback(responder);
        var timeouts = new StreamingHttp.Timeouts(providerTimeout, providerTimeout);
        // Two named providers on the one simulated server, so tests can fix conversations to either.
        var providers = ProviderRegistry.of("sim", List.of(
                simProvider("sim", SimProviderServer.MODEL, timeouts, retry, contextWindow),
                simProvider(OTHER_PROVIDER, OTHER_MODEL, timeouts, retry, contextWindow)));
        server = new SkillForgeServer("127.0.0.1", 0, dataDir, AgentLoop.DEFAULT_MAX_ITERATIONS, providers,
                JdbcConversationStore.open(null, null, null, dataDir), wrapStore, security);
        skills = server.skills;
        database = server.database;
        writer = server.writer;
        conversations = server.conversations;
    }

    private ConfiguredProvider simProvider(String name, String model, StreamingHttp.Timeouts timeouts, RetryPolicy retry,
                                           int contextWindow) {
        var client = new OpenAiCompatibleProvider(new OpenAiCompatibleProvider.Settings(sim.baseUrl(), "test-key",
                model, true, timeouts, retry));
        return new ConfiguredProvider(client, name, model, true, OpenAiChatRequest::messages, () -> { }, name, false, contextWindow);
    }

    /** For a test that makes cache breaks on purpose: {@link #close()} does not fail on them. */
    public ServerHarness expectCacheBreaks() {
        cacheBreaksExpected = true;
        return this;
    }

    public String url(String path) {
        return "http://127.0.0.1:" + server.port() + path;
    }

    @Override
    public void close() throws Exception {
        long breaks = server.metrics.cacheBreaks();
        server.close();
        sim.close();
        // The prompt-cache invariant holds in every test unless a test breaks it on purpose.
        if (breaks > 0 && !cacheBreaksExpected) {
            throw new AssertionError(breaks + " cache break(s): a request did not start with its conversation's previous one (see the WARN log)");
        }
    }
}
