package dev.skillforge.server.conversation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.people.Caller;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.server.provider.sim.SimRequest;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.testkit.SimScript;
import dev.skillforge.testkit.SseClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Edited messages and regenerated answers as branches of one conversation (design.md, "Branches"), over HTTP and MCP with
 * the SQLite store and the simulated provider, whose prefix cache is real: the list keeps one row, the snapshot says
 * where the versions are, a switch is remembered, HTTP acts on the branch it names and MCP's continuation_id on the one shown, and a branch's first request
 * extends the prefix it shares with the others byte for byte (the prefix guard would fail the test otherwise).
 */
class BranchesApiTest {

    @Test
    void editAndRegenerateAreVersionsOfOneConversationWhoseFirstRequestsExtendTheSharedPrefix(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript(SimReply.of("Noted."), SimReply.of("None yet."),
                SimReply.of("In short: none."), SimReply.of("Regenerated: none."), SimReply.of("Sent on the edit."),
                SimReply.of("Via MCP."), SimReply.of("Again via MCP.")))) {
            String original = create(server);
            turn(server, original, ForkAndSearchApiTest.NOTES);
            turn(server, original, "What skills do I have?");
            SimRequest shared = server.sim.requests().get(1); // turn 1's request: the shared prefix, then its message

            String edited = fork(server, original, 1);
            turn(server, edited, "Which skills, in short?");
            SimRequest editedRequest = server.sim.requests().getLast();
            assertExtends(editedRequest, shared, "Which skills, in short?");
            assertThat(editedRequest.cacheKey()).as("routed where the shared prefix is cached").isEqualTo(original);
            assertThat(editedRequest.cachedTokens()).as("the provider's cache hit").isGreaterThanOrEqualTo(1024);

            String regenerated = fork(server, edited, 1);
            turn(server, regenerated, "Which skills, in short?");
            assertThat(Json.write(server.sim.requests().getLast().messages())).isEqualTo(Json.write(editedRequest.messages()));
            assertThat(server.sim.requests().getLast().cachedTokens()).isGreaterThanOrEqualTo(1024);

            // One row, the branch made last, with the thread's last activity; all three are one thread.
            JsonNode list = SseClient.get(server.url("/api/conversations")).json();
            assertThat(list.path("conversations").findValuesAsText("id")).containsExactly(regenerated);
            assertThat(list.path("total").asLong()).isEqualTo(1);
            JsonNode row = list.path("conversations").get(0);
            assertThat(row.path("threadId").asText()).isEqualTo(original);
            assertThat(row.path("forkedFrom").asText()).isEqualTo(edited);
            assertThat(row.path("forkedAtTurn").asInt()).isEqualTo(1);

            // Where the versions are: turn 1 has three, in the order they were made.
            assertThat(conversation(server, regenerated).path("branches")).isEqualTo(Json.parse(
                    "[{\"turn\":1,\"index\":2,\"sameMessage\":false,\"ids\":[\"" + original + "\",\"" + edited + "\",\"" + regenerated + "\"]}]"));
            assertThat(conversation(server, original).path("branches").get(0).path("index").asInt()).isZero();

            // A switch is remembered: the row opens the branch selected last, and the list does not count it as activity.
            SseClient.Answer selected = SseClient.send("POST", server.url("/api/conversations/" + original + "/select"), null);
            assertThat(selected.status()).isEqualTo(200);
            assertThat(selected.json().path("id").asText()).isEqualTo(original);
            JsonNode switched = SseClient.get(server.url("/api/conversations")).json().path("conversations");
            assertThat(switched.findValuesAsText("id")).containsExactly(original);
            assertThat(switched.get(0).path("updatedAt").asLong()).isEqualTo(row.path("updatedAt").asLong());
            assertThat(SseClient.get(server.url("/api/conversations/search?q=grind")).json().path("conversations").findValuesAsText("id"))
                    .as("the shared notes match once").containsExactly(original);

            // Export reads the branch it names: the page exports the one it shows.
            String markdown = SseClient.get(server.url("/api/conversations/" + edited + "/export?format=markdown")).body();
            assertThat(markdown).contains("Which skills, in short?", "In short: none.").doesNotContain("What skills do I have?");
            assertThat(SseClient.get(server.url("/api/conversations/" + original + "/export?format=json")).body())
                    .contains("What skills do I have?").doesNotContain("in short");

            // A turn sent on a branch selects it: the list's row (what the page opens, exports and reads) is that branch.
            turn(server, edited, "And now?");
            JsonNode shownRow = SseClient.get(server.url("/api/conversations")).json().path("conversations").get(0);
            assertThat(shownRow.path("id").asText()).isEqualTo(edited);
            assertThat(SseClient.get(server.url("/api/conversations/" + shownRow.path("id").asText() + "/export?format=markdown")).body())
                    .contains("Which skills, in short?", "And now?", "Sent on the edit.").doesNotContain("What skills do I have?");

            // MCP's continuation_id names the conversation: the turn goes on in the branch shown, and the result names it.
            JsonNode viaMcp = mcpChat(server, "Go on.", original);
            assertThat(viaMcp.path("answer").asText()).isEqualTo("Via MCP.");
            assertThat(viaMcp.path("continuation_id").asText()).as("the branch the page shows").isEqualTo(edited);
            assertThat(Json.write(server.sim.requests().getLast().messages())).contains("Which skills, in short?", "And now?")
                    .doesNotContain("What skills do I have?");
            assertThat(conversation(server, edited).path("turns")).hasSize(4);
            assertThat(conversation(server, original).path("turns")).as("the version not shown is untouched").hasSize(2);
            assertThat(mcpChat(server, "Once more.", edited).path("continuation_id").asText()).isEqualTo(edited);

            // Renaming and deleting the row act on the whole thread.
            assertThat(SseClient.send("PATCH", server.url("/api/conversations/" + edited), "{\"title\":\"Skills\"}").status()).isEqualTo(200);
            for (String branch : List.of(original, edited, regenerated)) {
                assertThat(conversation(server, branch).path("title").asText()).isEqualTo("Skills");
            }
            assertThat(SseClient.send("DELETE", server.url("/api/conversations/" + edited), null).status()).isEqualTo(204);
            for (String branch : List.of(original, edited, regenerated)) {
                assertThat(SseClient.get(server.url("/api/conversations/" + branch)).status()).isEqualTo(404);
            }
            assertThat(SseClient.get(server.url("/api/conversations")).json().path("total").asLong()).isZero();
        }
    }

    @Test
    void aRegeneratedAnswersVersionsSendTheSameMessage(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript(SimReply.of("One."), SimReply.of("Two.")))) {
            String original = create(server);
            turn(server, original, "Pick a number");
            String regenerated = fork(server, original, 0);
            turn(server, regenerated, "Pick a number");

            JsonNode branches = conversation(server, regenerated).path("branches");
            assertThat(branches).hasSize(1);
            assertThat(branches.get(0).path("turn").asInt()).isZero();
            assertThat(branches.get(0).path("sameMessage").asBoolean()).as("the page shows the switch under the answer").isTrue();
            assertThat(branches.get(0).path("ids").get(1).asText()).isEqualTo(regenerated);
        }
    }

    @Test
    void anotherPersonsBranchIsNotFound(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript(SimReply.of("Hello.")))) {
            String original = create(server);
            turn(server, original, "Hi");
            String branch = fork(server, original, 0);
            Caller bob = new Caller("bob", false);

            for (Runnable call : List.<Runnable>of(() -> server.conversations.snapshotJson(bob, branch),
                    () -> server.conversations.select(bob, branch), () -> server.forks.fork(bob, branch, 0),
                    () -> server.conversations.rename(bob, branch, "mine"), () -> server.conversations.delete(bob, branch))) {
                assertThatThrownBy(call::run).isInstanceOfSatisfying(ConversationException.class,
                        e -> assertThat(e.kind()).isEqualTo(ConversationException.Kind.NOT_FOUND));
            }
            assertThat(server.conversations.list(bob, 10, 0)).isEmpty();
            assertThat(conversation(server, branch).path("title").asText()).isNotEqualTo("mine");
        }
    }

    /** The request sends {@code shared}'s messages but its last exactly as they were serialised, then {@code message}. */
    private static void assertExtends(SimRequest request, SimRequest shared, String message) {
        JsonNode sent = request.messages();
        JsonNode before = shared.messages();
        assertThat(sent.size()).isEqualTo(before.size());
        for (int i = 0; i < before.size() - 1; i++) {
            assertThat(Json.write(sent.get(i))).as("message %d", i).isEqualTo(Json.write(before.get(i)));
        }
        assertThat(sent.get(sent.size() - 1).path("content").asText()).isEqualTo(message);
    }

    /** The structured result of MCP's {@code chat} tool: {@code answer}, {@code continuation_id}, …. */
    private static JsonNode mcpChat(ServerHarness server, String prompt, String continuationId) {
        McpSyncClient client = McpClient.sync(HttpClientStreamableHttpTransport.builder(server.url("")).endpoint("/mcp").build())
                .requestTimeout(Duration.ofSeconds(60)).build();
        try {
            client.initialize();
            McpSchema.CallToolResult result = client.callTool(McpSchema.CallToolRequest.builder("chat")
                    .arguments(Map.of("prompt", prompt, "continuation_id", continuationId)).build());
            return Json.MAPPER.valueToTree(result.structuredContent());
        } finally {
            client.closeGracefully();
        }
    }

    private static String fork(ServerHarness server, String id, int beforeTurn) throws Exception {
        SseClient.Answer forked = SseClient.send("POST", server.url("/api/conversations/" + id + "/fork"), "{\"beforeTurn\":" + beforeTurn + "}");
        assertThat(forked.status()).isEqualTo(201);
        return forked.json().path("id").asText();
    }

    private static JsonNode conversation(ServerHarness server, String id) throws Exception {
        return SseClient.get(server.url("/api/conversations/" + id)).json();
    }

    private static String create(ServerHarness server) throws Exception {
        return SseClient.send("POST", server.url("/api/conversations"), "{}").json().path("id").asText();
    }

    private static void turn(ServerHarness server, String id, String content) throws Exception {
        List<SseClient.Event> events = SseClient.postForEvents(server.url("/api/conversations/" + id + "/messages"),
                Json.write(Json.object().put("content", content)));
        assertThat(events.getLast().text("stopReason")).isEqualTo("complete");
    }
}
