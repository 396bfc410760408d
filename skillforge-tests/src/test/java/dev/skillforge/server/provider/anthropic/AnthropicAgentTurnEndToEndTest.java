package dev.skillforge.server.provider.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.server.JdbcStorage;
import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.agent.ModelReply;
import dev.skillforge.core.transcript.Entry;
import dev.skillforge.server.ProviderFactory;
import dev.skillforge.server.SkillForgeServer;
import dev.skillforge.server.config.Settings;
import dev.skillforge.testkit.SseClient;
import dev.skillforge.server.price.TokenPrices;
import dev.skillforge.server.provider.ConfiguredProvider;
import dev.skillforge.testkit.RecordingListener;
import dev.skillforge.server.provider.RetryPolicy;
import dev.skillforge.server.provider.StreamingHttp;
import dev.skillforge.server.provider.sim.SimProviderServer;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.server.provider.sim.SimRequest;
import dev.skillforge.testkit.SimScript;
import dev.skillforge.server.store.JdbcConversationStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Whole turns through the real server in Anthropic's wire format: the agent loop, the conversation store, and the
 * simulation, which refuses (as Anthropic does) a signed thinking block that does not come back exactly as it went,
 * after exactly the same conversation. The answers' content blocks (thinking with its signature, redacted thinking,
 * text) survive the store and a restart byte for byte; every request only grows; cache writes and the cost are
 * carried from the usage events to the stored turns, the conversation view and the metrics.
 */
class AnthropicAgentTurnEndToEndTest {

    private static final String SIGNATURE = "RXRZRENrWUlDeGdDS2tBVkhFV1JZbzZS";
    /** Sonnet 5.5's prices, as the table has them: a turn's cost can be checked by hand. */
    private static final TokenPrices PRICES = new TokenPrices(2.00, 0.20, 2.50, 10.00);

    /** A first message long enough that every request is over the simulated model's 1,024-token cache minimum. */
    private static final String FIRST_MESSAGE = "What skills do I have? " + "I bake sourdough on weekends and keep notes on every loaf. ".repeat(90);

    @TempDir
    Path data;

    @Test
    void signedThinkingComesBackFromTheDatabaseUnchangedAfterARestartAndEveryRequestOnlyGrows() throws Exception {
        SimScript script = new SimScript(
                SimReply.of("Let me look at your skills.\n\n", "<shell>skill list</shell>")
                        .withReasoning("The person asks ", "for their skills.").withThoughtSignature(SIGNATURE)
                        .withRedactedThinking("RW5jcnlwdGVkIGJ5IHRoZSBzaW11bGF0aW9u"),
                SimReply.of("You have no skills yet.").withReasoning("Nothing there."),
                SimReply.of("Sure: ask me to learn something."),
                SimReply.of("Still here."));
        try (SimProviderServer sim = SimProviderServer.startOnLoopback(script, SimProviderServer.Options.DEFAULT.recordingRequests())) {
            String id;
            String storedBefore;
            try (SkillForgeServer server = serverOn(sim)) {
                id = SseClient.send("POST", url(server, "/api/conversations"), "{}").json().path("id").asText();

                List<SseClient.Event> first = SseClient.postForEvents(url(server, "/api/conversations/" + id + "/messages"),
                        "{\"content\":\"" + FIRST_MESSAGE + "\"}");
                assertThat(first.getLast().type()).as(first.getLast().data().toString()).isEqualTo("done");
                assertThat(first.stream().filter(e -> e.type().equals("reasoning")).map(e -> e.text("content")))
                        .containsExactly("The person asks ", "for their skills.", "Nothing there.");
                // every call's usage says what it wrote to the cache, and the turn's totals add them up
                List<JsonNode> usages = first.stream().filter(e -> e.type().equals("usage")).map(SseClient.Event::data).toList();
                assertThat(usages).hasSize(2).allSatisfy(u -> assertThat(u.has("cacheWriteTokens")).isTrue());
                assertThat(first.getLast().data().path("cacheWriteTokens").asLong())
                        .isEqualTo(usages.get(0).path("cacheWriteTokens").asLong() + usages.get(1).path("cacheWriteTokens").asLong());

                List<SseClient.Event> second = SseClient.postForEvents(url(server, "/api/conversations/" + id + "/messages"),
                        "{\"content\":\"Thanks!\"}");
                assertThat(second.getLast().type()).as(second.getLast().data().toString()).isEqualTo("done");
                storedBefore = firstAnswersReplay(SseClient.get(url(server, "/api/conversations/" + id)).json());
                assertThat(server.metrics().scrape()).contains("kind=\"cache_write\"");
            }
            // a new server on the same data folder reads the conversation back from the database
            JsonNode view;
            try (SkillForgeServer restarted = serverOn(sim)) {
                List<SseClient.Event> third = SseClient.postForEvents(url(restarted, "/api/conversations/" + id + "/messages"),
                        "{\"content\":\"Bye\"}");
                assertThat(third.getLast().type()).as(third.getLast().data().toString()).isEqualTo("done");
                view = SseClient.get(url(restarted, "/api/conversations/" + id)).json();
            }

            List<SimRequest> requests = sim.requests();
            // no request was refused: the simulation checked every signed block that came back
            assertThat(requests).hasSize(4).allSatisfy(r -> assertThat(r.format()).isEqualTo("anthropic"));
            assertThat(script.remaining()).isZero();
            // the first answer's blocks, as streamed: the signed thinking, the redacted block, the two text chunks as one block
            String blocks = "[{\"type\":\"thinking\",\"thinking\":\"The person asks for their skills.\",\"signature\":\"" + SIGNATURE + "\"},"
                    + "{\"type\":\"redacted_thinking\",\"data\":\"RW5jcnlwdGVkIGJ5IHRoZSBzaW11bGF0aW9u\"},"
                    + "{\"type\":\"text\",\"text\":\"Let me look at your skills.\\n\\n<shell>skill list</shell>\"}]";
            assertThat(storedBefore).isEqualTo(blocks);
            assertThat(firstAnswersReplay(view)).isEqualTo(blocks);
            assertThat(requests.get(1).body()).contains("{\"role\":\"assistant\",\"content\":" + blocks + "}");
            assertThat(requests.get(3).body()).as("after the restart").contains("{\"role\":\"assistant\",\"content\":" + blocks + "}");
            assertThat(requests.get(1).messages().get(2).toString()).startsWith("{\"role\":\"user\",\"content\":[{\"type\":\"text\","
                    + "\"text\":\"[Shell Output]\\n$ skill list\\n");
            // the prompt only grows, and the cache read each request of all the one before
            assertThat(requests.getFirst().promptTokens()).isGreaterThan(1024);
            for (int i = 0; i + 1 < requests.size(); i++) {
                String before = messagesWithoutClosingBracket(requests.get(i));
                assertThat(requests.get(i + 1).body()).as("request %d", i + 1).startsWith(before + ",");
                assertThat(requests.get(i + 1).cachedTokens()).as("request %d", i + 1).isEqualTo(requests.get(i).promptTokens());
            }
            // the stored turns keep the writes; their cost follows from the prices, and the conversation's is the sum
            JsonNode turn3 = view.path("turns").get(2).path("usage");
            SimRequest last = requests.get(3);
            assertThat(turn3.path("cacheReadTokens").asLong()).isEqualTo(last.cachedTokens());
            assertThat(turn3.path("cacheWriteTokens").asLong()).isEqualTo(last.cacheWriteTokens());
            long plain = turn3.path("inputTokens").asLong() - last.cachedTokens() - last.cacheWriteTokens();
            double expected = (plain * 2.00 + last.cachedTokens() * 0.20 + last.cacheWriteTokens() * 2.50
                    + turn3.path("outputTokens").asLong() * 10.00) / 1e6;
            assertThat(turn3.path("costUsd").asDouble()).isCloseTo(expected, within(0.000_001));
            double sum = 0;
            for (JsonNode turn : view.path("turns")) {
                sum += turn.path("usage").path("costUsd").asDouble();
            }
            assertThat(view.path("usage").path("costUsd").asDouble()).isCloseTo(sum, within(0.000_002)).isPositive();
            assertThat(view.path("usage").path("cacheWriteTokens").asLong()).isEqualTo(requests.stream().mapToLong(SimRequest::cacheWriteTokens).sum());
        }
    }

    @Test
    void forgeSimFormatAnthropicServesTheDemoThroughTheAnthropicClient() throws Exception {
        try (ConfiguredProvider provider = ProviderFactory.defaultProvider(Settings.from(
                Map.of("FORGE_SIM_FORMAT", "anthropic", "FORGE_CACHE_TTL", "1h", "FORGE_DATA_DIR", data.toString())))) {
            RecordingListener listener = new RecordingListener();

            ModelReply reply = provider.model().stream(new ModelCall("You forge skills.", List.of(new Entry.User("What skills do I have?")), "k"),
                    listener, new Cancellation());

            assertThat(provider.model()).isInstanceOf(AnthropicProvider.class);
            assertThat(((AnthropicProvider) provider.model()).settings().options().hourLongCache()).isTrue();
            assertThat(provider.simulated()).isTrue();
            assertThat(listener.allText()).contains("Simulated provider: an offline demo, not a real model");
            assertThat(reply.usage().cacheWriteTokens()).isNotNull();
            assertThat(reply.replay().format()).isEqualTo(AnthropicRequest.CONTENT_REPLAY);
        }
    }

    private SkillForgeServer serverOn(SimProviderServer sim) throws Exception {
        var client = new AnthropicProvider(new AnthropicProvider.Settings(sim.anthropicBaseUrl(), "test-key", SimProviderServer.MODEL,
                new StreamingHttp.Timeouts(Duration.ofSeconds(10), Duration.ofSeconds(10)),
                new RetryPolicy(1, Duration.ofMillis(10), Duration.ofMillis(50)), AnthropicRequest.Options.DEFAULT));
        var provider = new ConfiguredProvider(client, "anthropic-sim", SimProviderServer.MODEL, true, AnthropicRequest::conversation, () -> { },
                "sim", false, 1_000_000, PRICES);
        return SkillForgeServer.builder(data).provider(provider).storage(new JdbcStorage(JdbcConversationStore.open(null, null, null, data))).start();
    }

    /** The stored replay of the conversation's first answer, as {@code GET /api/conversations/{id}} shows it. */
    private static String firstAnswersReplay(JsonNode conversation) {
        for (JsonNode entry : conversation.path("entries")) {
            if (entry.path("role").asText().equals("assistant")) {
                assertThat(entry.at("/replay/format").asText()).isEqualTo(AnthropicRequest.CONTENT_REPLAY);
                return entry.at("/replay/data").asText();
            }
        }
        throw new AssertionError("no answer stored");
    }

    private static String url(SkillForgeServer server, String path) {
        return "http://127.0.0.1:" + server.port() + path;
    }

    /** The request body up to the end of its messages array (exclusive). */
    private static String messagesWithoutClosingBracket(SimRequest request) {
        String body = request.body();
        int end = body.indexOf("],\"stream\":");
        assertThat(end).as("messages are followed by stream").isPositive();
        return body.substring(0, end);
    }
}
