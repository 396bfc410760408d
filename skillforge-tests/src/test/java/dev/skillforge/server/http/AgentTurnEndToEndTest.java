package dev.skillforge.server.http;

import dev.skillforge.testkit.SseClient;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.server.provider.sim.SimRequest;
import dev.skillforge.testkit.SimScript;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A whole turn over real loopback HTTP: client → API (SSE) → agent loop → OpenAI-compatible client →
 * simulated provider, with the real skill commands. Three iterations: two commands, then the same
 * command twice, then an answer without commands.
 */
class AgentTurnEndToEndTest {

    private static final String SKILL = """
            skill set cold-brew
            ---
            name: cold-brew
            description: Make cold brew coffee at home.
            ---
            # Cold brew
            Steep coarse grounds in cold water for 16 hours.
            """;

    /** Iteration 0: a skill saved and the list asked for; tags split across chunks on purpose. */
    private static final SimReply FIRST = SimReply.of("I'll save it and check.\n<sh", "ell>" + SKILL.substring(0, 20),
            SKILL.substring(20) + "</shell>\n<shell>skill li", "st</she", "ll>");
    /** Iteration 1: the same command twice. */
    private static final SimReply SECOND = SimReply.of("Reading it twice: <shell>skill get cold-brew</shell>",
            " and <shell>skill get cold-brew</shell>");
    /** Iteration 2: the answer. */
    private static final SimReply THIRD = SimReply.of("Your skill ", "`cold-brew` is saved.");

    @Test
    void threeIterationTurnStreamsEveryStepAndKeepsEveryRequestAPrefixOfTheNext(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript(FIRST, SECOND, THIRD))) {
            // A first message long enough that the prompt passes OpenAI's 1024-token cache minimum.
            String question = "Please learn this recipe and keep it as a skill. " + "Coffee notes: grind coarse, steep cold. ".repeat(150);

            List<SseClient.Event> events = SseClient.postForEvents(server.url("/api/agent"), SseClient.userMessage(question));

            assertThat(types(events)).containsExactly(
                    "text", "text", "text", "tool-call", "text", "text", "tool-call",
                    "raw-content", "usage", "tool-start", "tool-result", "tool-start", "tool-result", "tool-output", "iteration-end",
                    "text", "tool-call", "text", "tool-call",
                    "raw-content", "usage", "tool-start", "tool-result", "tool-start", "tool-result", "tool-output", "iteration-end",
                    "text", "text", "raw-content", "usage", "iteration-end", "done");
            assertThat(events).extracting(SseClient.Event::id).isSorted().doesNotHaveDuplicates();

            assertThat(events.stream().filter(e -> e.type().equals("tool-call")).map(e -> e.text("commandId")))
                    .containsExactly("cmd-0-0", "cmd-0-1", "cmd-1-0", "cmd-1-1");
            for (String id : List.of("cmd-0-0", "cmd-0-1", "cmd-1-0", "cmd-1-1")) {
                assertThat(events.stream().filter(e -> id.equals(e.text("commandId"))).map(SseClient.Event::type))
                        .as("lifecycle of %s", id).containsExactly("tool-call", "tool-start", "tool-result");
            }
            Map<String, SseClient.Event> results = events.stream().filter(e -> e.type().equals("tool-result"))
                    .collect(Collectors.toMap(e -> e.text("commandId"), e -> e));
            assertThat(results.get("cmd-0-0").text("result")).startsWith("Saved skill cold-brew");
            assertThat(results.get("cmd-0-1").text("result")).contains("cold-brew: Make cold brew coffee at home.");
            assertThat(results.get("cmd-1-0").text("result")).isEqualTo(results.get("cmd-1-1").text("result")).contains("Steep coarse grounds");
            assertThat(results.values()).allSatisfy(r -> assertThat(r.data().path("exitCode").asInt()).isZero());

            // raw-content is byte for byte what streamed as text, iteration by iteration.
            List<String> raw = ofType(events, "raw-content").stream().map(e -> e.text("rawContent")).toList();
            assertThat(raw).containsExactly(FIRST.text(), SECOND.text(), THIRD.text());
            for (int iteration = 0; iteration < 3; iteration++) {
                int it = iteration;
                String streamed = events.stream().filter(e -> e.type().equals("text") && e.data().path("iteration").asInt() == it)
                        .map(e -> e.text("content")).collect(Collectors.joining());
                assertThat(streamed).isEqualTo(raw.get(iteration));
            }
            List<String> toolOutputs = ofType(events, "tool-output").stream().map(e -> e.text("toolOutput")).toList();
            assertThat(toolOutputs.get(1)).startsWith("$ skill get cold-brew\n---\nname: cold-brew")
                    .contains("\n\n$ skill get cold-brew\n---\n");

            SseClient.Event done = events.getLast();
            assertThat(done.text("stopReason")).isEqualTo("complete");
            assertThat(done.data().path("iterations").asInt()).isEqualTo(3);
            assertThat(done.data().path("commands").asInt()).isEqualTo(4);

            // The invariant: each request is the previous one's messages + the verbatim answer + the tool message.
            List<SimRequest> requests = server.sim.requests();
            assertThat(requests).hasSize(3);
            for (int i = 0; i + 1 < requests.size(); i++) {
                ArrayNode expected = ((ArrayNode) requests.get(i).messages()).deepCopy();
                expected.addObject().put("role", "assistant").put("content", raw.get(i));
                expected.addObject().put("role", "user").put("content", "[Shell Output]\n" + toolOutputs.get(i));
                assertThat(requests.get(i + 1).messages()).as("request %d", i + 1).isEqualTo(expected);
                assertThat(requests.get(i + 1).body()).as("bytes of request %d", i + 1)
                        .startsWith(messagesWithoutClosingBracket(requests.get(i)) + ",");
            }
            assertThat(requests.getFirst().json().path("stream_options").path("include_usage").asBoolean()).isTrue();
            assertThat(requests).extracting(SimRequest::cacheKey).containsOnly(requests.getFirst().cacheKey()).doesNotContainNull();

            // The simulated cache: the first prompt is new, the later ones reuse it (128-token steps past 1024).
            assertThat(requests.getFirst().promptTokens()).isGreaterThan(1024);
            assertThat(requests.getFirst().cachedTokens()).isZero();
            for (SimRequest later : requests.subList(1, 3)) {
                assertThat(later.cachedTokens()).isGreaterThanOrEqualTo(1024).isLessThanOrEqualTo(later.promptTokens());
                assertThat((later.cachedTokens() - 1024) % 128).isZero();
            }
            List<Long> reportedCache = ofType(events, "usage").stream().map(e -> e.data().path("cacheReadTokens").asLong()).toList();
            assertThat(reportedCache).containsExactly(0L, requests.get(1).cachedTokens(), requests.get(2).cachedTokens());
            assertThat(done.data().path("cacheReadTokens").asLong()).isEqualTo(requests.get(1).cachedTokens() + requests.get(2).cachedTokens());
            assertThat(server.skills.get("cold-brew")).isPresent();
        }
    }

    @Test
    void secondTurnSentWithTheStreamedContentExtendsTheFirstTurnsLastRequest(@TempDir Path data) throws Exception {
        SimReply list = SimReply.of("Checking. <shell>skill list</shell>");
        SimReply answer = SimReply.of("You have no skills yet.");
        SimReply followUp = SimReply.of("Sure.");
        try (ServerHarness server = new ServerHarness(data, new SimScript(list, answer, followUp))) {
            List<SseClient.Event> first = SseClient.postForEvents(server.url("/api/agent"), SseClient.userMessage("What skills do I have?"));

            // The client builds the next request from raw-content and tool-output, as the seeds' fixed client does.
            var body = Json.object();
            ArrayNode messages = body.putArray("messages");
            messages.addObject().put("role", "user").put("content", "What skills do I have?");
            messages.addObject().put("role", "assistant").put("content", ofType(first, "raw-content").get(0).text("rawContent"));
            messages.addObject().put("role", "tool").put("content", ofType(first, "tool-output").get(0).text("toolOutput"));
            messages.addObject().put("role", "assistant").put("content", ofType(first, "raw-content").get(1).text("rawContent"));
            messages.addObject().put("role", "user").put("content", "Thanks!");
            SseClient.postForEvents(server.url("/api/agent"), Json.write(body));

            List<SimRequest> requests = server.sim.requests();
            ArrayNode expected = ((ArrayNode) requests.get(1).messages()).deepCopy();
            expected.addObject().put("role", "assistant").put("content", "You have no skills yet.");
            expected.addObject().put("role", "user").put("content", "Thanks!");
            assertThat(requests.get(2).messages()).isEqualTo(expected);
            assertThat(requests.get(2).cacheKey()).isEqualTo(requests.get(0).cacheKey());
        }
    }

    /** The request body as sent, up to the end of its messages array (exclusive). */
    private static String messagesWithoutClosingBracket(SimRequest request) {
        int end = request.body().indexOf("],\"stream\":true");
        assertThat(end).as("messages are followed by the stream flag").isPositive();
        return request.body().substring(0, end);
    }

    private static List<String> types(List<SseClient.Event> events) {
        List<String> types = new ArrayList<>();
        events.forEach(e -> types.add(e.type()));
        return types;
    }

    private static List<SseClient.Event> ofType(List<SseClient.Event> events, String type) {
        return events.stream().filter(e -> e.type().equals(type)).toList();
    }
}
