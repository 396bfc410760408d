package dev.skillforge.server.provider.gemini;

import dev.skillforge.server.JdbcStorage;
import dev.skillforge.server.ProviderFactory;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.server.SkillForgeServer;
import dev.skillforge.testkit.SseClient;
import dev.skillforge.server.provider.ConfiguredProvider;
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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Whole turns through the real server with Gemini's wire format: the agent loop, the conversation
 * store, and the simulation, which refuses (as Gemini 3 does) a signed answer sent back without its
 * signature. The model's parts survive the store and a restart byte for byte, and every request only
 * grows.
 */
class GeminiAgentTurnEndToEndTest {

    private static final String SIGNATURE_1 = "RXFjRUNxUUVBYjQrOXZ2S3R3M3pBeU5FeEht";
    private static final String SIGNATURE_2 = "RXE4RENxd0RBYjQrOXZzb1ZCM28rNU9S";
    private static final String SIGNATURE_3 = "RXBBSUNvMElBYjQrOXZ1a3Uzb0RIUjVF";

    @TempDir
    Path data;

    @Test
    void toolLoopAndAFollowUpTurnReplayEverySignedAnswerExactlyAlsoAfterARestart() throws Exception {
        SimScript script = new SimScript(
                SimReply.of("Let me look at your skills.\n\n", "<shell>skill list</shell>")
                        .withReasoning("**Checking** the skills first.").withThoughtSignature(SIGNATURE_1),
                SimReply.of("You have no skills yet.").withThoughtSignature(SIGNATURE_2),
                SimReply.of("Sure: ask me to learn something.").withThoughtSignature(SIGNATURE_3),
                SimReply.of("Still here."));
        try (SimProviderServer sim = SimProviderServer.startOnLoopback(script, SimProviderServer.Options.DEFAULT.recordingRequests())) {
            String id;
            try (SkillForgeServer server = serverOn(sim)) {
                id = SseClient.send("POST", url(server, "/api/conversations"), "{}").json().path("id").asText();

                List<SseClient.Event> first = SseClient.postForEvents(url(server, "/api/conversations/" + id + "/messages"),
                        "{\"content\":\"What skills do I have? See https://youtu.be/dQw4w9WgXcQ\"}");
                assertThat(types(first)).contains("reasoning", "tool-call", "tool-result", "tool-output", "usage");
                assertThat(first.getLast().type()).isEqualTo("done");
                assertThat(first.stream().filter(e -> e.type().equals("reasoning")).map(e -> e.text("content")))
                        .containsExactly("**Checking** the skills first.");

                List<SseClient.Event> second = SseClient.postForEvents(url(server, "/api/conversations/" + id + "/messages"),
                        "{\"content\":\"Thanks!\"}");
                assertThat(second.getLast().type()).as(second.getLast().data().toString()).isEqualTo("done");

                // the export is the conversation the provider receives next, in Gemini's shape
                JsonNode export = SseClient.get(url(server, "/api/conversations/" + id + "/export?format=json")).json();
                assertThat(export.path("contents")).hasSize(6);
            }
            // a new server on the same data folder reads the conversation back from the database
            try (SkillForgeServer restarted = serverOn(sim)) {
                List<SseClient.Event> third = SseClient.postForEvents(url(restarted, "/api/conversations/" + id + "/messages"),
                        "{\"content\":\"Bye\"}");
                assertThat(third.getLast().type()).as(third.getLast().data().toString()).isEqualTo("done");
            }

            List<SimRequest> requests = sim.requests();
            assertThat(requests).hasSize(4).allSatisfy(r -> assertThat(r.format()).isEqualTo("gemini"));
            // the person's message: the video first, then the text
            assertThat(requests.getFirst().contents().get(0).toString()).isEqualTo("{\"role\":\"user\",\"parts\":["
                    + "{\"file_data\":{\"file_uri\":\"https://www.youtube.com/watch?v=dQw4w9WgXcQ\"}},"
                    + "{\"text\":\"What skills do I have? See https://youtu.be/dQw4w9WgXcQ\"}]}");
            // iteration 2 carries iteration 1's parts as streamed: the thought, the two text chunks unmerged, the signed empty text
            String turn1Parts = "[{\"text\":\"**Checking** the skills first.\",\"thought\":true},"
                    + "{\"text\":\"Let me look at your skills.\\n\\n\"},{\"text\":\"<shell>skill list</shell>\"},"
                    + "{\"text\":\"\",\"thoughtSignature\":\"" + SIGNATURE_1 + "\"}]";
            assertThat(requests.get(1).body()).contains("{\"role\":\"model\",\"parts\":" + turn1Parts + "}");
            assertThat(requests.get(1).contents().get(2).toString()).startsWith("{\"role\":\"user\",\"parts\":[{\"text\":\"[Shell Output]\\n$ skill list\\n");
            // the last request, after the restart, still carries every signed answer byte for byte
            String last = requests.get(3).body();
            assertThat(last).contains(turn1Parts)
                    .contains("[{\"text\":\"You have no skills yet.\"},{\"text\":\"\",\"thoughtSignature\":\"" + SIGNATURE_2 + "\"}]")
                    .contains("[{\"text\":\"Sure: ask me to learn something.\"},{\"text\":\"\",\"thoughtSignature\":\"" + SIGNATURE_3 + "\"}]");
            // the prompt only grows: each request's contents start with the previous one's
            for (int i = 0; i + 1 < requests.size(); i++) {
                String before = contentsWithoutClosingBracket(requests.get(i));
                assertThat(requests.get(i + 1).body()).as("request %d", i + 1).startsWith(before + ",");
            }
        }
    }

    @Test
    void statelessTurnWithTheDemoAgentInGeminiFormatWritesTheSkill() throws Exception {
        try (ConfiguredProvider provider = ProviderFactory.defaultProvider(dev.skillforge.server.config.Settings.from(
                java.util.Map.of("FORGE_SIM_FORMAT", "gemini", "FORGE_DATA_DIR", data.toString())));
             SkillForgeServer server = SkillForgeServer.builder(data)
                     .provider(new ConfiguredProvider(provider.model(), provider.name(), provider.modelName(), provider.simulated(),
                             provider.nextRequestMessages(), () -> { }))
                     .storage(new JdbcStorage(JdbcConversationStore.open(null, null, null, data))).start()) {
            List<SseClient.Event> events = SseClient.postForEvents(url(server, "/api/agent"),
                    SseClient.userMessage("Learn how to make cold brew coffee"));

            assertThat(events.getLast().type()).isEqualTo("done");
            assertThat(events.getLast().text("stopReason")).isEqualTo("complete");
            assertThat(server.skills().current(dev.skillforge.server.skill.SkillAccess.LOCAL, "cold-brew-coffee")).isPresent();
        }
    }

    private SkillForgeServer serverOn(SimProviderServer sim) throws Exception {
        var client = new GeminiProvider(new GeminiProvider.Settings(sim.geminiBaseUrl(), "test-key", SimProviderServer.MODEL,
                new StreamingHttp.Timeouts(Duration.ofSeconds(10), Duration.ofSeconds(10)), new RetryPolicy(1, Duration.ofMillis(10), Duration.ofMillis(50)),
                GeminiRequest.Options.ALL));
        var provider = new ConfiguredProvider(client, "gemini-sim", SimProviderServer.MODEL, true, GeminiRequest::conversation, () -> { });
        return SkillForgeServer.builder(data).provider(provider).storage(new JdbcStorage(JdbcConversationStore.open(null, null, null, data))).start();
    }

    private static String url(SkillForgeServer server, String path) {
        return "http://127.0.0.1:" + server.port() + path;
    }

    private static List<String> types(List<SseClient.Event> events) {
        return events.stream().map(SseClient.Event::type).toList();
    }

    /** The request body up to the end of its contents array (exclusive). */
    private static String contentsWithoutClosingBracket(SimRequest request) {
        String body = request.body();
        int end = body.indexOf("],\"tools\":");
        assertThat(end).as("contents are followed by the tools").isPositive();
        ObjectNode check = (ObjectNode) request.json();
        assertThat(check.has("contents")).isTrue();
        return body.substring(0, end);
    }
}
