package dev.skillforge.server.conversation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.testkit.SseClient;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.testkit.SimScript;
import dev.skillforge.testkit.OutageSimulatingStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** The conversation API over real HTTP, with the SQLite store and the simulated provider. */
class ConversationApiTest {

    private static final SimReply LIST = SimReply.of("Let me look. ", "<shell>skill list</shell>");
    private static final SimReply ANSWER = SimReply.of("You have ", "no skills yet.");

    @Test
    void createListRenameAndDeleteAConversation(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript())) {
            SseClient.Answer first = SseClient.send("POST", server.url("/api/conversations"), "{\"title\":\"Coffee\"}");
            SseClient.Answer second = SseClient.send("POST", server.url("/api/conversations"), null);

            assertThat(first.status()).isEqualTo(201);
            String id = first.json().path("id").asText();
            assertThat(UUID.fromString(id).version()).isEqualTo(4);
            assertThat(first.json().path("title").asText()).isEqualTo("Coffee");
            String secondId = second.json().path("id").asText();

            JsonNode list = SseClient.get(server.url("/api/conversations?limit=1")).json();
            assertThat(list.path("total").asLong()).isEqualTo(2);
            assertThat(list.path("conversations")).hasSize(1);
            JsonNode page2 = SseClient.get(server.url("/api/conversations?limit=1&offset=1")).json();
            List<String> ids = List.of(list.path("conversations").get(0).path("id").asText(), page2.path("conversations").get(0).path("id").asText());
            assertThat(ids).containsExactlyInAnyOrder(id, secondId);

            SseClient.Answer renamed = SseClient.send("PATCH", server.url("/api/conversations/" + id), "{\"title\":\"Cold brew\"}");
            assertThat(renamed.status()).isEqualTo(200);
            assertThat(SseClient.get(server.url("/api/conversations/" + id)).json().path("title").asText()).isEqualTo("Cold brew");

            SseClient.Answer notAString = SseClient.send("PATCH", server.url("/api/conversations/" + id), "{\"title\":42}");
            assertThat(notAString.status()).isEqualTo(400);
            assertThat(notAString.json().path("error").path("message").asText()).contains("'title' must be a string, not a number");

            assertThat(SseClient.send("DELETE", server.url("/api/conversations/" + id), null).status()).isEqualTo(204);
            assertThat(SseClient.get(server.url("/api/conversations/" + id)).status()).isEqualTo(404);
            assertThat(server.writer.flush(Duration.ofSeconds(5))).isTrue();
            assertThat(server.database.conversation(id)).isEmpty();
            assertThat(server.database.conversation(secondId)).isPresent();
        }
    }

    @Test
    void turnsByIdSendOnlyTheNewMessageAndTheProviderGetsTheWholeHistory(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript(LIST, ANSWER, SimReply.of("Sure.")))) {
            String id = create(server);

            List<SseClient.Event> first = turn(server, id, "What skills do I have?");
            List<SseClient.Event> second = turn(server, id, "Thanks!");

            assertThat(first.getLast().text("stopReason")).isEqualTo("complete");
            assertThat(second.getLast().text("stopReason")).isEqualTo("complete");
            assertThat(second.getFirst().id()).as("event ids keep growing across turns").isGreaterThan(first.getLast().id());
            var requests = server.sim.requests();
            ArrayNode expected = ((ArrayNode) requests.get(1).messages()).deepCopy();
            expected.addObject().put("role", "assistant").put("content", "You have no skills yet.");
            expected.addObject().put("role", "user").put("content", "Thanks!");
            assertThat(requests.get(2).messages()).isEqualTo(expected);
            assertThat(requests).extracting(r -> r.cacheKey()).containsOnly(id);

            JsonNode conversation = SseClient.get(server.url("/api/conversations/" + id)).json();
            assertThat(conversation.path("title").asText()).isEqualTo("What skills do I have?");
            assertThat(conversation.path("entries")).extracting(e -> e.path("role").asText())
                    .containsExactly("user", "assistant", "tool", "assistant", "user", "assistant");
            assertThat(conversation.path("entries").get(1).path("content").asText()).isEqualTo("Let me look. <shell>skill list</shell>");
            JsonNode turn0 = conversation.path("turns").get(0);
            assertThat(turn0.path("status").asText()).isEqualTo("complete");
            assertThat(turn0.path("userMessage").asText()).isEqualTo("What skills do I have?");
            assertThat(turn0.path("iterations")).hasSize(2);
            JsonNode command = turn0.path("iterations").get(0).path("commands").get(0);
            assertThat(command.path("commandId").asText()).isEqualTo("cmd-0-0");
            assertThat(command.path("status").asText()).isEqualTo("completed");
            assertThat(command.path("result").asText()).startsWith("No skills yet.");
            assertThat(turn0.path("iterations").get(0).path("toolOutput").asText()).startsWith("$ skill list\nNo skills yet.");
            assertThat(turn0.path("iterations").get(1).path("usage").path("inputTokens").asLong()).isPositive();

            // What the page reads comes from memory; the database has the same once the writer caught up.
            assertThat(server.writer.flush(Duration.ofSeconds(5))).isTrue();
            assertThat(server.database.entries(id)).extracting(e -> e.content())
                    .containsExactlyElementsOf(conversation.path("entries").findValuesAsText("content"));
        }
    }

    @Test
    void aSecondTurnWhileOneRunsIsRefusedAndStopEndsTheRunningOne(@TempDir Path data) throws Exception {
        SimReply endless = SimReply.of("Working on it", " slowly").withFault(new SimReply.Stall(2));
        try (ServerHarness server = new ServerHarness(data, new SimScript(endless))) {
            String id = create(server);
            HttpResponse<InputStream> running = SseClient.open(server.url("/api/conversations/" + id + "/messages"), "{\"content\":\"Go\"}");
            List<SseClient.Event> started = SseClient.readEvents(running.body(), 2);
            assertThat(started).extracting(SseClient.Event::type).containsExactly("text", "text");

            SseClient.Answer refused = SseClient.postForAnswer(server.url("/api/conversations/" + id + "/messages"), "{\"content\":\"Again\"}");
            assertThat(refused.status()).isEqualTo(409);
            assertThat(refused.json().path("error").path("code").asText()).isEqualTo("turn_in_progress");

            SseClient.Answer stop = SseClient.postForAnswer(server.url("/api/conversations/" + id + "/stop"), "");
            assertThat(stop.json().path("stopped").asBoolean()).isTrue();
            List<SseClient.Event> rest = SseClient.readEvents(running.body(), Integer.MAX_VALUE);
            assertThat(rest.getLast().type()).isEqualTo("done");
            assertThat(rest.getLast().text("stopReason")).isEqualTo("cancelled");
            assertThat(server.sim.awaitAbort(Duration.ofSeconds(2))).as("the provider request was aborted").isTrue();

            JsonNode conversation = SseClient.get(server.url("/api/conversations/" + id)).json();
            assertThat(conversation.path("running").asBoolean()).isFalse();
            assertThat(conversation.path("turns").get(0).path("status").asText()).isEqualTo("cancelled");
            assertThat(conversation.path("entries")).extracting(e -> e.path("content").asText())
                    .containsExactly("Go", "Working on it slowly");
            assertThat(SseClient.postForAnswer(server.url("/api/conversations/" + id + "/stop"), "").json().path("stopped").asBoolean()).isFalse();
        }
    }

    @Test
    void aClientThatLeavesDoesNotStopTheTurnAndResumesWithoutLossOrRepeat(@TempDir Path data) throws Exception {
        SimReply slow = SimReply.of("one ", "two ", "three ", "four ", "five ", "six ", "seven ", "eight").withDelay(Duration.ofMillis(60));
        try (ServerHarness server = new ServerHarness(data, new SimScript(slow))) {
            String id = create(server);
            HttpResponse<InputStream> response = SseClient.open(server.url("/api/conversations/" + id + "/messages"), "{\"content\":\"Count\"}");
            List<SseClient.Event> seen = new ArrayList<>(SseClient.readEvents(response.body(), 2));
            response.body().close(); // the tab closes

            List<SseClient.Event> resumed = SseClient.getEvents(server.url("/api/conversations/" + id + "/events"), seen.getLast().id());
            seen.addAll(resumed);

            List<SseClient.Event> whole = SseClient.getEvents(server.url("/api/conversations/" + id + "/events"), null);
            assertThat(seen).extracting(SseClient.Event::id).containsExactlyElementsOf(whole.stream().map(SseClient.Event::id).toList());
            assertThat(seen).extracting(e -> e.data().toString()).containsExactlyElementsOf(whole.stream().map(e -> e.data().toString()).toList());
            assertThat(whole.getLast().text("stopReason")).isEqualTo("complete");
            JsonNode conversation = SseClient.get(server.url("/api/conversations/" + id)).json();
            assertThat(conversation.path("entries").get(1).path("content").asText()).isEqualTo("one two three four five six seven eight");
        }
    }

    @Test
    void eventsOfAConversationWithoutARunAnswer204(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript())) {
            String id = create(server);
            assertThat(SseClient.get(server.url("/api/conversations/" + id + "/events")).status()).isEqualTo(204);
        }
    }

    @Test
    void jsonExportIsExactlyTheMessagesTheProviderReceivesNext(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript(LIST, ANSWER, SimReply.of("Bye.")))) {
            String id = create(server);
            turn(server, id, "What skills do I have?");

            JsonNode export = SseClient.get(server.url("/api/conversations/" + id + "/export?format=json")).json();
            turn(server, id, "Bye");

            ArrayNode sent = ((ArrayNode) server.sim.requests().get(2).messages()).deepCopy();
            sent.remove(sent.size() - 1); // the new user message
            assertThat(export).isEqualTo(sent);
            String markdown = SseClient.get(server.url("/api/conversations/" + id + "/export?format=markdown")).body();
            assertThat(markdown).startsWith("# What skills do I have?").contains("## You\n\nBye").contains("```text\n$ skill list\n");
            assertThat(SseClient.get(server.url("/api/conversations/" + id + "/export?format=pdf")).status()).isEqualTo(400);
        }
    }

    @Test
    void theAgentEndpointContinuesAConversationById(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript(ANSWER, SimReply.of("Again: none.")))) {
            String id = create(server);
            SseClient.postForEvents(server.url("/api/agent"), "{\"conversationId\":\"" + id + "\",\"messages\":[{\"role\":\"user\",\"content\":\"Skills?\"}]}");
            SseClient.postForEvents(server.url("/api/agent"), "{\"conversationId\":\"" + id + "\",\"content\":\"And now?\"}");

            JsonNode conversation = SseClient.get(server.url("/api/conversations/" + id)).json();
            assertThat(conversation.path("entries")).extracting(e -> e.path("content").asText())
                    .containsExactly("Skills?", "You have no skills yet.", "And now?", "Again: none.");
        }
    }

    @Test
    void unknownAndMalformedIdsAre404AndBadBodiesAre4xxWithNothingStored(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript())) {
            String id = create(server);
            for (String bad : List.of(UUID.randomUUID().toString(), "not-an-id", "..%2F..%2Fetc", "x".repeat(300))) {
                SseClient.Answer answer = SseClient.get(server.url("/api/conversations/" + bad));
                assertThat(answer.status()).as(bad).isEqualTo(404);
                assertThat(answer.json().path("error").path("code").asText()).isEqualTo("not_found");
            }
            assertThat(SseClient.postForAnswer(server.url("/api/conversations/" + UUID.randomUUID() + "/messages"), "{\"content\":\"hi\"}").status()).isEqualTo(404);

            String messages = server.url("/api/conversations/" + id + "/messages");
            assertThat(SseClient.postForAnswer(messages, "{\"content\":42}").status()).isEqualTo(400);
            assertThat(SseClient.postForAnswer(messages, "{}").status()).isEqualTo(400);
            assertThat(SseClient.postForAnswer(messages, "{\"content\":\"  \"}").status()).isEqualTo(400);
            assertThat(SseClient.postForAnswer(messages, "{\"content\":").status()).isEqualTo(400);
            SseClient.Answer huge = SseClient.postForAnswer(messages, "{\"content\":\"" + "x".repeat(2 * 1024 * 1024) + "\"}");
            assertThat(huge.status()).isEqualTo(413);
            SseClient.Answer longTitle = SseClient.send("PATCH", server.url("/api/conversations/" + id), "{\"title\":\"" + "t".repeat(500) + "\"}");
            assertThat(longTitle.status()).isEqualTo(400);
            assertThat(SseClient.get(server.url("/api/conversations?limit=0")).status()).isEqualTo(400);

            assertThat(server.writer.flush(Duration.ofSeconds(5))).isTrue();
            assertThat(server.database.entries(id)).isEmpty();
            assertThat(server.database.turns(id)).isEmpty();
            assertThat(server.sim.requests()).isEmpty();
        }
    }

    @Test
    void turnsOnAHotConversationGoOnWhileTheDatabaseIsDownAndAllLandsWhenItIsBack(@TempDir Path data) throws Exception {
        AtomicReference<OutageSimulatingStore> outage = new AtomicReference<>();
        try (ServerHarness server = ServerHarness.builder(data, new SimScript(ANSWER, SimReply.of("Still here.")))
                .providerTimeout(Duration.ofSeconds(10)).wrapStore(store -> {
                    outage.set(new OutageSimulatingStore(store));
                    return outage.get();
                }).start()) {
            String id = create(server);
            assertThat(server.writer.flush(Duration.ofSeconds(5))).isTrue();
            outage.get().setDown(true);

            List<SseClient.Event> first = turn(server, id, "Skills?");
            List<SseClient.Event> second = turn(server, id, "And?");

            assertThat(first.getLast().text("stopReason")).isEqualTo("complete");
            assertThat(second.getLast().text("stopReason")).isEqualTo("complete");
            assertThat(server.writer.flush(Duration.ofMillis(300))).as("nothing can be written while down").isFalse();
            outage.get().setDown(false);
            assertThat(server.writer.flush(Duration.ofSeconds(10))).isTrue();
            assertThat(server.database.entries(id)).extracting(e -> e.content())
                    .containsExactly("Skills?", "You have no skills yet.", "And?", "Still here.");
            assertThat(server.database.turns(id)).extracting(t -> t.status()).containsExactly("complete", "complete");
        }
    }

    @Test
    void eachConversationIsFixedToTheProviderAndModelItStartedWith(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript(ANSWER, ANSWER))) {
            String onDefault = create(server);
            SseClient.Answer created = SseClient.send("POST", server.url("/api/conversations"),
                    "{\"provider\":\"" + ServerHarness.OTHER_PROVIDER + "\"}");
            assertThat(created.status()).isEqualTo(201);
            String onOther = created.json().path("id").asText();
            assertThat(created.json().path("provider").asText()).isEqualTo(ServerHarness.OTHER_PROVIDER);
            assertThat(created.json().path("model").asText()).isEqualTo(ServerHarness.OTHER_MODEL);

            turn(server, onOther, "Skills?");
            turn(server, onDefault, "Skills?");

            assertThat(server.sim.requests()).extracting(r -> r.json().path("model").asText())
                    .containsExactly(ServerHarness.OTHER_MODEL, "skillforge-sim-1");
            assertThat(SseClient.get(server.url("/api/conversations/" + onDefault)).json().path("provider").asText()).isEqualTo("sim");

            SseClient.Answer unknown = SseClient.send("POST", server.url("/api/conversations"), "{\"provider\":\"nope\"}");
            assertThat(unknown.status()).isEqualTo(400);
            assertThat(unknown.json().path("error").path("message").asText()).contains("No provider is named nope").contains("sim, other");
            SseClient.Answer otherModel = SseClient.send("POST", server.url("/api/conversations"), "{\"provider\":\"sim\",\"model\":\"gpt-9\"}");
            assertThat(otherModel.status()).isEqualTo(400);
            assertThat(SseClient.send("POST", server.url("/api/conversations"), "{\"provider\":7}").status()).isEqualTo(400);
        }
    }

    @Test
    void aProviderErrorThatEchoesTheKeyIsStreamedAndStoredWithoutIt(@TempDir Path data) throws Exception {
        String echo = "Incorrect API key provided: " + ServerHarness.API_KEY + ". Check the key and try again.";
        try (ServerHarness server = new ServerHarness(data, new SimScript(SimReply.of().withFault(new SimReply.HttpError(401, echo, null))))) {
            String id = create(server);

            SseClient.Event error = turn(server, id, "Hello?").getLast();
            JsonNode stored = SseClient.get(server.url("/api/conversations/" + id)).json().path("turns").get(0).path("error");

            String redacted = "The provider answered HTTP 401: Incorrect API key provided: [redacted]. Check the key and try again. (sim_error)";
            assertThat(error.text("code")).isEqualTo("provider_http_error");
            assertThat(error.text("message")).isEqualTo(redacted);
            assertThat(stored.path("message").asText()).isEqualTo(redacted);
            assertThat(server.writer.flush(Duration.ofSeconds(5))).isTrue();
            assertThat(server.database.turns(id).toString()).doesNotContain(ServerHarness.API_KEY);
        }
    }

    private static String create(ServerHarness server) throws Exception {
        return SseClient.send("POST", server.url("/api/conversations"), "{}").json().path("id").asText();
    }

    private static List<SseClient.Event> turn(ServerHarness server, String id, String content) throws Exception {
        var body = Json.object().put("content", content);
        return SseClient.postForEvents(server.url("/api/conversations/" + id + "/messages"), Json.write(body));
    }
}
