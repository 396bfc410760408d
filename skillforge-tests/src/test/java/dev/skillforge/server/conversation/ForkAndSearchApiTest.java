package dev.skillforge.server.conversation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.server.provider.sim.SimRequest;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.testkit.SimScript;
import dev.skillforge.testkit.SseClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Forks (an edited message, a regenerated answer) and search over HTTP, with the SQLite store and the
 * simulated provider, whose prefix cache is real: a fork's first request must hit it.
 */
class ForkAndSearchApiTest {

    /** A first message long enough for the provider's cache (1,024 tokens and up). */
    static final String NOTES = "Cold brew notes:\n" + IntStream.rangeClosed(1, 60)
            .mapToObj(i -> "- Note " + i + ": grind coarse, steep twelve hours in the fridge, filter twice.")
            .collect(Collectors.joining("\n"));

    @Test
    void anEditForksBeforeItsTurnAndTheForksFirstRequestExtendsTheSharedPrefixSoTheCacheHits(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript(SimReply.of("Noted."),
                SimReply.of("Let me look. <shell>skill list</shell>"), SimReply.of("None yet."),
                SimReply.of("Sure, shorter."), SimReply.of("Regenerated.")))) {
            String id = create(server);
            turn(server, id, NOTES);
            turn(server, id, "What skills do I have?");
            JsonNode original = conversation(server, id);
            List<SimRequest> before = server.sim.requests();
            SimRequest turnOne = before.get(1); // the request that sent turn 1's message

            // Edit turn 1's message: a fork before turn 1.
            SseClient.Answer forked = SseClient.send("POST", server.url("/api/conversations/" + id + "/fork"), "{\"beforeTurn\":1}");
            assertThat(forked.status()).isEqualTo(201);
            String fork = forked.json().path("id").asText();
            assertThat(fork).isNotEqualTo(id);
            assertThat(forked.json().path("forkedFrom").asText()).isEqualTo(id);
            assertThat(forked.json().path("title").asText()).isEqualTo(original.path("title").asText());
            JsonNode copied = conversation(server, fork);
            assertThat(copied.path("entries")).hasSize(2);
            assertThat(copied.path("entries").get(0).path("content").asText()).isEqualTo(NOTES);
            assertThat(copied.path("turns")).hasSize(1);

            List<SseClient.Event> events = turn(server, fork, "Which skills, in short?");
            assertThat(events.getLast().text("stopReason")).isEqualTo("complete");
            SimRequest forkRequest = server.sim.requests().get(before.size());
            // Byte-exact: the fork's request is turn 1's request up to its last message, then the edited one.
            JsonNode sent = forkRequest.messages();
            JsonNode shared = turnOne.messages();
            assertThat(sent.size()).isEqualTo(shared.size());
            for (int i = 0; i < shared.size() - 1; i++) {
                assertThat(Json.write(sent.get(i))).as("message %d", i).isEqualTo(Json.write(shared.get(i)));
            }
            assertThat(sent.get(sent.size() - 1).path("content").asText()).isEqualTo("Which skills, in short?");
            assertThat(forkRequest.cacheKey()).as("routed where the original's prefix is cached").isEqualTo(id);
            assertThat(forkRequest.cachedTokens()).as("the provider's cache hit").isGreaterThanOrEqualTo(1024);

            // The original stays as it was; both are listed, the fork marked.
            assertThat(conversation(server, id).path("entries")).isEqualTo(original.path("entries"));
            JsonNode list = SseClient.get(server.url("/api/conversations")).json().path("conversations");
            assertThat(list).extracting(c -> c.path("id").asText()).containsExactlyInAnyOrder(id, fork);
            assertThat(list).filteredOn(c -> c.path("id").asText().equals(fork)).first()
                    .satisfies(c -> assertThat(c.path("forkedFrom").asText()).isEqualTo(id));

            // Regenerate the fork's last answer: a fork of the fork before its last turn; the cache still hits.
            String again = SseClient.send("POST", server.url("/api/conversations/" + fork + "/fork"), "{\"beforeTurn\":1}")
                    .json().path("id").asText();
            turn(server, again, "Which skills, in short?");
            SimRequest regenerated = server.sim.requests().getLast();
            assertThat(Json.write(regenerated.messages())).isEqualTo(Json.write(forkRequest.messages()));
            assertThat(regenerated.cacheKey()).isEqualTo(id);
            assertThat(regenerated.cachedTokens()).isGreaterThanOrEqualTo(1024);

            // Wrong turns are refused with what is allowed.
            SseClient.Answer tooFar = SseClient.send("POST", server.url("/api/conversations/" + id + "/fork"), "{\"beforeTurn\":7}");
            assertThat(tooFar.status()).isEqualTo(400);
            assertThat(tooFar.json().path("error").path("message").asText()).contains("from 0 to 2");
            assertThat(SseClient.send("POST", server.url("/api/conversations/" + id + "/fork"), "{\"beforeTurn\":\"1\"}").status()).isEqualTo(400);
        }
    }

    @Test
    void searchFindsTitlesAndMessageTextInTheDatabase(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript(SimReply.of("Steep it twelve hours."),
                SimReply.of("Feed the starter daily."), SimReply.of("Hello.")))) {
            String coffee = create(server);
            turn(server, coffee, "How do I make cold brew?");
            String bread = create(server);
            turn(server, bread, "Sourdough starter care");
            String other = create(server);
            turn(server, other, "Hi");
            SseClient.send("PATCH", server.url("/api/conversations/" + other), "{\"title\":\"Weekend plans\"}");

            assertThat(search(server, "brew")).containsExactly(coffee); // a title and a message
            assertThat(search(server, "twelve HOURS")).containsExactly(coffee); // an answer's words, case aside
            assertThat(search(server, "starte")).containsExactly(bread); // the start of a word
            assertThat(search(server, "weekend")).containsExactly(other); // a title only
            assertThat(search(server, "daily brew")).isEmpty(); // every word, in one message or the title
            assertThat(search(server, "\" OR * -- ;")).isEmpty(); // no match syntax reaches the database
            assertThat(SseClient.get(server.url("/api/conversations/search?q=" + "x".repeat(201))).status()).isEqualTo(400);
        }
    }

    private static List<String> search(ServerHarness server, String query) throws Exception {
        JsonNode found = SseClient.get(server.url("/api/conversations/search?q=" + java.net.URLEncoder.encode(query, java.nio.charset.StandardCharsets.UTF_8)))
                .json().path("conversations");
        return java.util.stream.StreamSupport.stream(found.spliterator(), false).map(c -> c.path("id").asText()).toList();
    }

    private static JsonNode conversation(ServerHarness server, String id) throws Exception {
        return SseClient.get(server.url("/api/conversations/" + id)).json();
    }

    private static String create(ServerHarness server) throws Exception {
        return SseClient.send("POST", server.url("/api/conversations"), "{}").json().path("id").asText();
    }

    private static List<SseClient.Event> turn(ServerHarness server, String id, String content) throws Exception {
        return SseClient.postForEvents(server.url("/api/conversations/" + id + "/messages"), Json.write(Json.object().put("content", content)));
    }
}
