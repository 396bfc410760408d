package dev.skillforge.server.cache;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.testkit.SseClient;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.cache.CacheRule;
import dev.skillforge.server.provider.sim.SimProviderServer;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.server.provider.sim.SimRequest;
import dev.skillforge.server.provider.sim.SimResponder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import static dev.skillforge.server.cache.CacheFidelityTest.value;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A conversation that outgrows its model's context window, on a real server against the simulated
 * provider's real prefix cache: its view is cut in a few large steps, each a new cached prefix that the
 * next requests hit, never a cache break; the person still sees every message; a restart reads the
 * stored cut back exactly.
 */
class ContextCutEndToEndTest {

    /** Small, so that a conversation outgrows it in a few turns (the system prompt alone is some 930 tokens). */
    private static final int WINDOW = 4864;
    private static final int TURNS = 16;
    private static final String NOTES = "---\nname: coffee-notes\ndescription: Notes on grinding and brewing coffee.\n---\n# Coffee notes\n\n"
            + "Grind coarse for cold brew and French press, fine for espresso, medium for filters. ".repeat(20);
    /** Reads the long skill on every turn, then answers: each turn adds some 450 tokens of tool output. */
    private static final SimResponder READER = messages -> messages.getLast().content().startsWith("[Shell Output]")
            ? SimReply.of("Noted.") : SimReply.of("Reading it again: <shell>skill get coffee-notes</shell>");

    @Test
    void aConversationThatOutgrowsItsWindowIsCutInRareStepsEachANewPrefixTheNextRequestsHit(@TempDir Path data) throws Exception {
        try (ServerHarness server = ServerHarness.builder(data, READER).contextWindow(WINDOW).start()) {
            Talk talk = outgrowTheWindow(server);
            String id = talk.id();

            List<SimRequest> requests = server.sim.requests();
            List<Integer> cuts = IntStream.range(1, requests.size()).filter(k -> !note(requests.get(k)).equals(note(requests.get(k - 1))))
                    .boxed().toList();
            assertThat(cuts).as("cut requests of %d", requests.size()).hasSizeBetween(2, requests.size() / 6);
            for (int k = 1; k < requests.size(); k++) {
                SimRequest request = requests.get(k);
                if (!cuts.contains(k)) {
                    assertThat(request.cachedTokens()).as("request %d caches all of request %d", k, k - 1)
                            .isEqualTo(CacheRule.OPENAI.cachedTokens((int) requests.get(k - 1).promptTokens(), (int) request.promptTokens()));
                }
                assertThat(request.promptTokens()).as("request %d stays inside the window", k).isLessThan(WINDOW);
            }
            for (int cut : cuts) {
                assertThat(requests.get(cut + 1).cachedTokens()).as("the request after cut request %d hits its new prefix", cut)
                        .isGreaterThanOrEqualTo(1024);
            }
            String metrics = SseClient.get(server.url("/metrics")).body();
            assertThat(value(metrics, "skillforge_context_cuts_total", "provider=\"sim\"", "model=\"" + SimProviderServer.MODEL + "\""))
                    .isEqualTo(cuts.size());
            assertThat(value(metrics, "skillforge_cache_breaks_total")).isZero();

            // The person sees every message; each turn whose view was cut says where, with the note the model read.
            JsonNode view = SseClient.get(server.url("/api/conversations/" + id)).json();
            List<String> asked = new ArrayList<>();
            List<JsonNode> contextEntries = new ArrayList<>();
            for (JsonNode entry : view.path("entries")) {
                switch (entry.path("role").asText()) {
                    case "user" -> asked.add(entry.path("content").asText());
                    case "context" -> contextEntries.add(entry);
                    default -> { }
                }
            }
            assertThat(asked).isEqualTo(IntStream.rangeClosed(1, TURNS).mapToObj(ContextCutEndToEndTest::question).toList());
            List<SseClient.Event> cutEvents = talk.events().stream().filter(e -> e.type().equals("context-cut")).toList();
            assertThat(contextEntries).hasSameSizeAs(cuts).hasSameSizeAs(cutEvents);
            for (int c = 0; c < cuts.size(); c++) {
                JsonNode entry = contextEntries.get(c);
                JsonNode cutRequest = requests.get(cuts.get(c)).messages();
                assertThat(entry.path("content").asText()).isEqualTo(note(requests.get(cuts.get(c))));
                JsonNode turnView = view.path("turns").get(entry.path("turn").asInt());
                int keptFrom = turnView.path("contextCut").path("keptFromSeq").asInt();
                assertThat(turnView.path("contextCut").path("note").asText()).isEqualTo(entry.path("content").asText());
                assertThat(cutEvents.get(c).text("note")).isEqualTo(entry.path("content").asText());
                assertThat(cutEvents.get(c).data().path("keptFrom").asInt()).isEqualTo(keptFrom);
                assertThat(view.path("entries").get(keptFrom).path("content").asText()).as("the first message the model kept")
                        .isEqualTo(cutRequest.get(2).path("content").asText());
            }
            String markdown = SseClient.get(server.url("/api/conversations/" + id + "/export?format=markdown")).body();
            assertThat(markdown).contains("\n> " + contextEntries.getFirst().path("content").asText().replace("\n", "\n> ") + "\n");
            assertThat(SseClient.get(server.url("/api/providers")).json().at("/providers/0/contextWindow").asInt()).isEqualTo(WINDOW);
        }
    }

    @Test
    void afterARestartTheStoredCutGivesExactlyTheNextRequestItWouldHaveGiven(@TempDir Path data) throws Exception {
        String id;
        JsonNode next;
        try (ServerHarness server = ServerHarness.builder(data, READER).contextWindow(WINDOW).start()) {
            id = outgrowTheWindow(server).id();
            next = SseClient.get(server.url("/api/conversations/" + id + "/export?format=json")).json();
            ArrayNode sent = ((ArrayNode) server.sim.requests().getLast().messages()).deepCopy();
            sent.add(Json.object().put("role", "assistant").put("content", "Noted."));
            assertThat(next).as("the exported next request extends the last one sent").isEqualTo(sent);
            assertThat(next.get(1).path("content").asText()).startsWith("[Context note]");
        }

        try (ServerHarness restarted = ServerHarness.builder(data, READER).contextWindow(WINDOW).start()) {
            assertThat(SseClient.get(restarted.url("/api/conversations/" + id + "/export?format=json")).json()).isEqualTo(next);
            turn(restarted, id, "One more question");

            ArrayNode sent = ((ArrayNode) restarted.sim.requests().getFirst().messages()).deepCopy();
            sent.remove(sent.size() - 1); // the new user message
            assertThat(sent).isEqualTo(next);
            assertThat(restarted.sim.requests().get(1).cachedTokens()).as("and the next request hits it").isGreaterThanOrEqualTo(1024);
        }
    }

    /** A conversation and the events of its turns. */
    private record Talk(String id, List<SseClient.Event> events) {
    }

    /** A conversation of {@link #TURNS} turns, each reading the long skill: it outgrows {@link #WINDOW} twice or more. */
    private static Talk outgrowTheWindow(ServerHarness server) throws Exception {
        server.skills.save("coffee-notes", NOTES);
        String id = SseClient.send("POST", server.url("/api/conversations"), "{}").json().path("id").asText();
        List<SseClient.Event> events = new ArrayList<>();
        for (int turn = 1; turn <= TURNS; turn++) {
            List<SseClient.Event> ofTurn = turn(server, id, question(turn));
            assertThat(ofTurn.getLast().text("stopReason")).as("turn %d ended with %s", turn, ofTurn.getLast().data()).isEqualTo("complete");
            events.addAll(ofTurn);
        }
        return new Talk(id, events);
    }

    private static String question(int turn) {
        return "Question " + turn + ": what do the notes say about grinding?";
    }

    private static List<SseClient.Event> turn(ServerHarness server, String id, String content) throws Exception {
        return SseClient.postForEvents(server.url("/api/conversations/" + id + "/messages"), Json.write(Json.object().put("content", content)));
    }

    /** The context note a request starts with (after the system prompt), or "" when it has none. */
    private static String note(SimRequest request) {
        String first = request.messages().get(1).path("content").asText();
        return first.startsWith("[Context note]") ? first : "";
    }
}
