package dev.skillforge.server.conversation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.core.agent.TurnLimits;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.testkit.SseClient;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.testkit.SimScript;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The limits of one turn in a real server: an answer past the size limit fails its turn and leaves
 * the conversation as it was, and commands past the turn's budget are reported as not run.
 */
class TurnLimitsTest {

    @Test
    void anAnswerPastTheSizeLimitFailsTheTurnAndTheConversationGoesOnFromWhereItWas(@TempDir Path data) throws Exception {
        List<String> endless = new ArrayList<>(List.of("Listing: <shell>skill list</shell> "));
        for (int i = 0; i < 2_000; i++) {
            endless.add("0123456789");
        }
        SimScript script = new SimScript(SimReply.of(endless.toArray(String[]::new)), SimReply.of("A short answer."));
        try (ServerHarness server = ServerHarness.builder(data, script).turnLimits(TurnLimits.DEFAULT.withMaxAnswerChars(1_000)).start()) {
            String id = create(server);

            List<SseClient.Event> failed = turn(server, id, "Talk a lot.");
            List<SseClient.Event> next = turn(server, id, "Briefly, please.");

            SseClient.Event error = failed.getLast();
            assertThat(error.type()).isEqualTo("error");
            assertThat(error.text("code")).isEqualTo("answer_too_long");
            assertThat(error.text("message")).isEqualTo("The model's answer passed 1000 characters, the most this server takes"
                    + " from one answer: it was stopped there and is not kept");
            assertThat(failed).filteredOn(e -> e.type().equals("tool-result")).singleElement()
                    .satisfies(result -> assertThat(result.text("result")).isEqualTo("[not run: the model call failed]"));
            assertThat(failed).filteredOn(e -> e.type().equals("text")).extracting(e -> e.text("content"))
                    .as("text stops at the limit").hasSizeLessThan(100);
            assertThat(next.getLast().text("stopReason")).isEqualTo("complete");

            JsonNode conversation = SseClient.get(server.url("/api/conversations/" + id)).json();
            assertThat(conversation.path("turns")).extracting(t -> t.path("status").asText()).containsExactly("failed", "complete");
            assertThat(conversation.path("turns").get(0).path("error").path("code").asText()).isEqualTo("answer_too_long");
            assertThat(conversation.path("entries")).extracting(e -> e.path("role").asText() + ": " + e.path("content").asText())
                    .as("nothing of the too long answer is stored")
                    .containsExactly("user: Talk a lot.", "user: Briefly, please.", "assistant: A short answer.");
        }
    }

    @Test
    void commandsPastTheTurnsBudgetAreReportedAsNotRunAndStoredSo(@TempDir Path data) throws Exception {
        SimScript script = new SimScript(SimReply.of("<shell>skill list</shell><shell>skill list</shell>", "<shell>skill help</shell>"),
                SimReply.of("Two were enough."));
        try (ServerHarness server = ServerHarness.builder(data, script).turnLimits(TurnLimits.DEFAULT.withMaxCommands(2)).start()) {
            String id = create(server);

            List<SseClient.Event> events = turn(server, id, "Look three times.");

            String notRun = "[not run: the per-turn command budget of 2 is spent; answer with what you have,"
                    + " and the person can ask you to go on in a new message]";
            assertThat(events).filteredOn(e -> e.type().equals("tool-result"))
                    .extracting(e -> e.text("commandId") + " " + e.data().path("exitCode").asInt())
                    .containsExactly("cmd-0-0 0", "cmd-0-1 0", "cmd-0-2 126");
            assertThat(events).filteredOn(e -> e.type().equals("tool-start")).hasSize(2);
            assertThat(events.getLast().data().path("commands").asInt()).isEqualTo(2);
            JsonNode turn = SseClient.get(server.url("/api/conversations/" + id)).json().path("turns").get(0);
            JsonNode third = turn.path("iterations").get(0).path("commands").get(2);
            assertThat(third.path("status").asText()).isEqualTo("failed");
            assertThat(third.path("result").asText()).isEqualTo(notRun);
            assertThat(turn.path("iterations").get(0).path("toolOutput").asText()).endsWith("$ skill help\n" + notRun);
        }
    }

    private static String create(ServerHarness server) throws Exception {
        return SseClient.send("POST", server.url("/api/conversations"), "{}").json().path("id").asText();
    }

    private static List<SseClient.Event> turn(ServerHarness server, String id, String content) throws Exception {
        return SseClient.postForEvents(server.url("/api/conversations/" + id + "/messages"), Json.write(Json.object().put("content", content)));
    }
}
