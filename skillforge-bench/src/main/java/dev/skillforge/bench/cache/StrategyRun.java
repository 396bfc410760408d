package dev.skillforge.bench.cache;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.server.JdbcStorage;
import dev.skillforge.core.agent.ModelProvider;
import dev.skillforge.server.SkillForgeServer;
import dev.skillforge.server.provider.ConfiguredProvider;
import dev.skillforge.server.provider.ProviderRegistry;
import dev.skillforge.server.provider.sim.SimProviderServer;
import dev.skillforge.server.store.JdbcConversationStore;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The suite under one cache rule and one history strategy, on a fresh server driven over loopback
 * HTTP like a client. Each conversation is fixed to a provider of its own (named after it) with a
 * fresh simulated provider behind it: nothing cached from another conversation, and its own context
 * window. The conversations run one after the other, so the skills they save are the same for
 * every strategy (unless the strategy's own failures change them).
 */
final class StrategyRun {

    /** The server's window for a baseline: never reached, so the baseline alone decides what is sent. */
    private static final int NO_WINDOW = Integer.MAX_VALUE;

    private StrategyRun() {
    }

    static Measurement run(RuleCase rule, HistoryStrategy strategy, List<ScriptedConversation> suite, ScriptedModel model) throws Exception {
        Path data = Files.createTempDirectory("skillforge-cache-bench");
        try (SkillForgeServer server = server(data, providers(rule, strategy, suite, model))) {
            ConversationClient client = new ConversationClient(server.port());
            List<ConversationResult> results = new ArrayList<>();
            for (ScriptedConversation conversation : suite) {
                long breaksBefore = server.metrics().cacheBreaks();
                String id = client.create(conversation.name());
                List<ConversationResult.Call> calls = new ArrayList<>();
                int failed = 0;
                int cuts = 0;
                for (ScriptedTurn turn : conversation.turns()) {
                    for (JsonNode event : client.turn(id, turn.user())) {
                        switch (event.path("type").asText()) {
                            case "usage" -> calls.add(new ConversationResult.Call(event.get("inputTokens").asLong(),
                                    event.path("cacheReadTokens").asLong(0),
                                    event.has("cacheWriteTokens") ? event.get("cacheWriteTokens").asLong() : null,
                                    event.path("outputTokens").asLong()));
                            case "context-cut" -> cuts++;
                            case "error" -> {
                                failed++;
                                requireRefusedAsTooLong(event, rule, strategy, conversation);
                            }
                            default -> { }
                        }
                    }
                }
                results.add(new ConversationResult(conversation, calls, failed, server.metrics().cacheBreaks() - breaksBefore, cuts));
            }
            return new Measurement(rule, strategy, results);
        } finally {
            delete(data);
        }
    }

    /** The server owns {@code providers} from here on: a start that fails closes them. */
    private static SkillForgeServer server(Path data, ProviderRegistry providers) throws Exception {
        JdbcConversationStore database;
        try {
            database = JdbcConversationStore.open(null, null, null, data);
        } catch (RuntimeException e) {
            providers.close();
            throw e;
        }
        return SkillForgeServer.builder(data).providers(providers).storage(new JdbcStorage(database)).start();
    }

    /** One provider per conversation, each on its own simulated provider (closed with the server). */
    private static ProviderRegistry providers(RuleCase rule, HistoryStrategy strategy, List<ScriptedConversation> suite, ScriptedModel model) {
        List<ConfiguredProvider> providers = new ArrayList<>();
        for (ScriptedConversation conversation : suite) {
            SimProviderServer sim = SimProviderServer.startOnLoopback(model, rule.simOptions(conversation.contextWindow()));
            providers.add(provider(conversation.name(), rule, strategy, conversation.contextWindow(), sim));
        }
        return ProviderRegistry.of(suite.getFirst().name(), providers);
    }

    private static ConfiguredProvider provider(String name, RuleCase rule, HistoryStrategy strategy, int window, SimProviderServer sim) {
        ModelProvider client = rule.client(sim);
        return switch (strategy) {
            case HistoryStrategy.SkillForge skillForge -> new ConfiguredProvider(client, name, SimProviderServer.MODEL, true,
                    rule.serialiser(), sim, "sim", false, window);
            case HistoryStrategy.Baseline baseline -> {
                ViewedModel viewed = new ViewedModel(client, baseline.view());
                yield new ConfiguredProvider(viewed, name, SimProviderServer.MODEL, true, call -> rule.serialiser().apply(viewed.viewed(call)),
                        sim, "sim", false, NO_WINDOW);
            }
        };
    }

    /** The only failure a run may have is the model refusing a prompt longer than its window; anything else is the benchmark's bug. */
    private static void requireRefusedAsTooLong(JsonNode error, RuleCase rule, HistoryStrategy strategy, ScriptedConversation conversation) {
        String message = error.path("message").asText();
        // OpenAI's words, Gemini's and Anthropic's, as the simulated provider says them
        if (!message.contains("maximum context length") && !message.contains("exceeds the maximum number of tokens allowed")
                && !message.contains("prompt is too long")) {
            throw new IllegalStateException(rule.name() + " / " + strategy.name() + " / " + conversation.name() + ": a call failed: " + message);
        }
    }

    private static void delete(Path folder) throws IOException {
        try (Stream<Path> files = Files.walk(folder)) {
            for (Path path : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
