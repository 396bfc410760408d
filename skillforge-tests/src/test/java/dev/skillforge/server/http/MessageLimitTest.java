package dev.skillforge.server.http;

import dev.skillforge.testkit.SseClient;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.server.conversation.MessageLimit;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.provider.sim.SimProviderServer;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.testkit.SimScript;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One limit for a new user message on every route that takes one (regression: the 1 MiB limit of
 * {@code /messages} was a body limit, and {@code /api/agent} with a {@code conversationId} took a
 * message of up to 4 MiB). Counted in UTF-8 bytes: the message over the limit here is under it in
 * characters.
 */
class MessageLimitTest {

    /** One byte over: 524,288 two-byte characters and one more byte. */
    static final String OVER = "é".repeat(MessageLimit.MAX_BYTES / 2) + "x";
    /** Exactly the limit, in short words (one long word takes the tokenizer long). */
    static final String AT = "é ".repeat(MessageLimit.MAX_BYTES / 3) + "x";

    @TempDir
    Path data;

    /** A route that takes a new message, with the body that sends one through it. */
    record Route(String name, String path, String body) {
    }

    static List<Route> routes(String id, String message) {
        ObjectNode withContent = Json.object().put("conversationId", id).put("content", message);
        ObjectNode withMessages = Json.object().put("conversationId", id);
        withMessages.putArray("messages").addObject().put("role", "user").put("content", message);
        return List.of(
                new Route("messages", "/api/conversations/" + id + "/messages", Json.write(Json.object().put("content", message))),
                new Route("agent, conversationId and content", "/api/agent", Json.write(withContent)),
                new Route("agent, conversationId and messages", "/api/agent", Json.write(withMessages)),
                new Route("agent, stateless", "/api/agent", SseClient.userMessage(message)));
    }

    @Test
    void everyRouteRefusesAMessageOverTheLimitWithOneAnswer() throws Exception {
        SimScript script = new SimScript();
        try (ServerHarness server = new ServerHarness(data, script)) {
            String id = SseClient.send("POST", server.url("/api/conversations"), "{}").json().path("id").asText();
            for (Route route : routes(id, OVER)) {
                SseClient.Answer answer = SseClient.send("POST", server.url(route.path()), route.body());
                String what = route.name();
                assertThat(answer.status()).as(what).isEqualTo(413);
                JsonNode error = answer.json().path("error");
                assertThat(error.path("code").asText()).as(what).isEqualTo("message_too_large");
                assertThat(error.path("message").asText()).as(what)
                        .isEqualTo("The message is 1048577 bytes of UTF-8; the limit is 1048576 bytes (1 MiB)");
            }
            JsonNode conversation = SseClient.get(server.url("/api/conversations/" + id)).json();
            assertThat(conversation.path("entries")).as("nothing was stored").isEmpty();
            assertThat(conversation.path("turns")).isEmpty();
        }
    }

    @Test
    void everyRouteTakesAMessageAtTheLimit() throws Exception {
        SimReply noted = SimReply.of("Noted.");
        // Gemini's wire format: its simulated model takes a million tokens, room for a 1 MiB message.
        List<ServerHarness.SimProvider> gemini = List.of(ServerHarness.SimProvider.gemini("sim", SimProviderServer.MODEL, 1_048_576));
        try (ServerHarness server = ServerHarness.builder(data, new SimScript(noted, noted, noted, noted)).providers(gemini).start()) {
            for (int i = 0; i < 4; i++) {
                // A conversation of its own for each route: each turn is a first message.
                String id = SseClient.send("POST", server.url("/api/conversations"), "{}").json().path("id").asText();
                Route route = routes(id, AT).get(i);
                SseClient.Answer answer = SseClient.send("POST", server.url(route.path()), route.body());
                assertThat(answer.status()).as(route.name()).isEqualTo(200);
                assertThat(answer.body()).as(route.name()).contains("Noted.").contains("\"type\":\"done\"");
            }
        }
    }
}
