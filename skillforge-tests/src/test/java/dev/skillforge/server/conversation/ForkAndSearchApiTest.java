package dev.skillforge.server.conversation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.server.provider.sim.SimRequest;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.testkit.SimScript;
import dev.skillforge.testkit.SseClient;
import dev.skillforge.testkit.TestDocuments;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Base64;
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

            // The original stays as it was; the fork is a branch of its thread, listed in its place (BranchesApiTest).
            assertThat(conversation(server, id).path("entries")).isEqualTo(original.path("entries"));
            JsonNode list = SseClient.get(server.url("/api/conversations")).json().path("conversations");
            assertThat(list).extracting(c -> c.path("id").asText()).containsExactly(fork);
            assertThat(list.get(0).path("forkedFrom").asText()).isEqualTo(id);

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
            assertThat(search(server, "\" OR * -- ;")).isEmpty(); // no word: nothing found, as before (no match syntax reaches the database)
            assertThat(search(server, "")).isEmpty();
            assertThat(SseClient.get(server.url("/api/conversations/search?q=" + "x".repeat(201))).status()).isEqualTo(400);
        }
    }

    @Test
    void eachResultSaysWhereTheWordsAreAPassageOfAMessageAnAnswerOrAnAttachedDocumentWithTheMatchOffsets(@TempDir Path data) throws Exception {
        byte[] pdf = TestDocuments.pdf("Quarterly figures\nThe zeppelin budget rose by twelve percent.");
        try (ServerHarness server = new ServerHarness(data, new SimScript(SimReply.of("Read it. The Zeppelin line is the one to watch."),
                SimReply.of("Hello.")))) {
            String report = create(server);
            ObjectNode body = Json.object().put("content", "Summarise the attached report");
            body.putArray("attachments").addObject().put("name", "figures.pdf").put("mediaType", "application/pdf")
                    .put("data", Base64.getEncoder().encodeToString(pdf));
            SseClient.postForEvents(server.url("/api/conversations/" + report + "/messages"), Json.write(body));
            turn(server, create(server), "Nothing to do with it");

            JsonNode answer = searchAnswer(server, "budget");
            assertThat(answer.path("q").asText()).isEqualTo("budget");
            assertThat(answer.path("limit").asInt()).isEqualTo(20);
            JsonNode found = answer.path("conversations");
            assertThat(found).hasSize(1);
            JsonNode result = found.get(0);
            assertThat(result.path("id").asText()).isEqualTo(report);
            assertThat(result.has("title")).as("the summary's fields are all still there").isTrue();
            assertThat(result.path("titleMatches")).isEmpty();
            JsonNode snippet = result.path("snippets").get(0);
            assertThat(snippet.path("seq").asInt()).as("the message the document came with").isZero();
            assertThat(snippet.path("kind").asText()).isEqualTo("attachment");
            assertThat(snippet.path("name").asText()).isEqualTo("figures.pdf");
            assertThat(snippet.path("sha256").asText()).hasSize(64);
            assertThat(marked(snippet)).containsExactly("budget");
            assertThat(snippet.path("text").asText()).contains("The zeppelin budget rose").doesNotContain("<document");

            // Two words, in the document and in the answer: a passage of each, every match marked, the entries' seq.
            JsonNode both = searchAnswer(server, "ZEPPELIN watch").path("conversations").get(0).path("snippets");
            assertThat(both).extracting(s -> s.path("seq").asInt(), s -> s.path("kind").asText())
                    .containsExactly(org.assertj.core.groups.Tuple.tuple(0, "attachment"), org.assertj.core.groups.Tuple.tuple(1, "assistant"));
            assertThat(marked(both.get(0))).containsExactly("zeppelin");
            assertThat(marked(both.get(1))).containsExactly("Zeppelin", "watch");
            assertThat(conversation(server, report).path("entries").get(1).path("seq").asInt())
                    .as("seq numbers the conversation's entries as its snapshot does").isEqualTo(1);

            JsonNode message = searchAnswer(server, "nothing").path("conversations").get(0);
            assertThat(message.path("snippets").get(0).path("kind").asText()).isEqualTo("user");
            assertThat(marked(message.path("snippets").get(0))).containsExactly("Nothing");
        }
    }

    /** The words a snippet marks: its text at each [start, end] of its matches. */
    private static List<String> marked(JsonNode snippet) {
        String text = snippet.path("text").asText();
        return java.util.stream.StreamSupport.stream(snippet.path("matches").spliterator(), false)
                .map(match -> text.substring(match.get(0).asInt(), match.get(1).asInt())).toList();
    }

    private static JsonNode searchAnswer(ServerHarness server, String query) throws Exception {
        SseClient.Answer answer = SseClient.get(server.url("/api/conversations/search?q=" + java.net.URLEncoder.encode(query, java.nio.charset.StandardCharsets.UTF_8)));
        assertThat(answer.status()).isEqualTo(200);
        return answer.json();
    }

    private static List<String> search(ServerHarness server, String query) throws Exception {
        JsonNode found = searchAnswer(server, query).path("conversations");
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
