package dev.skillforge.server.trace;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.core.agent.AgentEvent;
import dev.skillforge.core.agent.EventSink;
import dev.skillforge.core.agent.StopReason;
import dev.skillforge.core.agent.Usage;
import dev.skillforge.server.cache.PrefixGuard;
import dev.skillforge.server.error.ConfigurationException;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.provider.sim.SimProviderServer;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.server.provider.sim.SimRequest;
import dev.skillforge.testkit.OtlpReceiver;
import dev.skillforge.testkit.OtlpReceiver.ReceivedSpan;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.testkit.SimScript;
import dev.skillforge.testkit.SseClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Traces exported over real OTLP/HTTP to a receiver on loopback that decodes the protobuf: a turn of two iterations
 * and one command is one {@code invoke_agent} span (continuing the caller's {@code traceparent}) with two {@code chat}
 * children and one {@code execute_tool}, with their attributes and the simulated cache's figures; content only when
 * the operator asks; and no exporter at all when nothing is configured.
 */
class TracingEndToEndTest {

    private static final SimReply FIRST = SimReply.of("Let me look.\n<shell>skill list</shell>");
    private static final SimReply SECOND = SimReply.of("You have ", "no skills yet.");
    /** Long enough that the prompt passes the simulated cache's 1024-token minimum. */
    private static final String QUESTION = "Which skills do I have? " + "Coffee notes: grind coarse, steep cold. ".repeat(150);
    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String CALLER_SPAN = "00f067aa0ba902b7";

    @Test
    void aTurnOfTwoIterationsAndACommandIsOneAgentSpanWithTwoChatsAndOneTool(@TempDir Path data) throws Exception {
        try (OtlpReceiver receiver = OtlpReceiver.start()) {
            String id;
            List<SimRequest> requests;
            try (ServerHarness server = ServerHarness.builder(data, new SimScript(FIRST, SECOND)).tracing(receiver.tracing(Map.of(
                    "OTEL_SERVICE_NAME", "skillforge-under-test",
                    // Langfuse's shape: Basic credentials and its ingestion-version header. Values are URL-decoded (the
                    // OTel spec): a base64 "+" must be sent as %2B, as docs/tracing.md says.
                    "OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Basic cGs%2BbGY6c2s=,x-langfuse-ingestion-version=4"))).start()) {
                id = SseClient.send("POST", server.url("/api/conversations"), "{}").json().path("id").asText();
                List<SseClient.Event> events = postWithTraceparent(server.url("/api/conversations/" + id + "/messages"),
                        Json.write(Json.object().put("content", QUESTION)), "00-" + TRACE_ID + "-" + CALLER_SPAN + "-01");
                assertThat(events.getLast().type()).isEqualTo("done");
                requests = server.sim.requests();
            } // closing the server exports what is left
            List<ReceivedSpan> spans = receiver.spans();
            assertThat(spans).extracting(ReceivedSpan::name)
                    .containsExactlyInAnyOrder("invoke_agent skillforge", "chat " + SimProviderServer.MODEL, "chat " + SimProviderServer.MODEL,
                            "execute_tool shell");

            ReceivedSpan turn = only(spans, "invoke_agent");
            assertThat(turn.traceId()).as("the caller's trace goes on").isEqualTo(TRACE_ID);
            assertThat(turn.parentSpanId()).isEqualTo(CALLER_SPAN);
            assertThat(spans).allSatisfy(span -> assertThat(span.traceId()).isEqualTo(TRACE_ID));
            assertThat(turn.attributes()).containsEntry("gen_ai.operation.name", "invoke_agent")
                    .containsEntry("gen_ai.agent.name", "skillforge").containsEntry("gen_ai.conversation.id", id)
                    .containsEntry("user.id", "local") // the person's id, never their name or e-mail
                    .containsEntry("gen_ai.provider.name", "skillforge.sim").containsEntry("gen_ai.request.model", SimProviderServer.MODEL)
                    .containsEntry("gen_ai.response.finish_reasons", List.of("complete"))
                    .containsEntry("skillforge.iterations", 2L).containsEntry("skillforge.commands", 1L)
                    .containsEntry("gen_ai.usage.input_tokens", requests.get(0).promptTokens() + requests.get(1).promptTokens())
                    .containsEntry("gen_ai.usage.cache_read.input_tokens", requests.get(1).cachedTokens());
            assertThat(turn.resource()).containsEntry("service.name", "skillforge-under-test");

            List<ReceivedSpan> chats = spans.stream().filter(span -> span.name().startsWith("chat "))
                    .sorted(Comparator.comparingLong(ReceivedSpan::startNanos)).toList();
            for (int i = 0; i < 2; i++) {
                ReceivedSpan chat = chats.get(i);
                assertThat(chat.parentSpanId()).isEqualTo(turn.spanId());
                assertThat(chat.kind()).as("client").isEqualTo(3);
                assertThat(chat.attributes()).containsEntry("gen_ai.operation.name", "chat").containsEntry("skillforge.iteration", (long) i)
                        .containsEntry("gen_ai.conversation.id", id).containsEntry("gen_ai.provider.name", "skillforge.sim")
                        .containsEntry("gen_ai.request.model", SimProviderServer.MODEL)
                        .containsEntry("gen_ai.usage.input_tokens", requests.get(i).promptTokens())
                        .containsEntry("gen_ai.usage.cache_read.input_tokens", requests.get(i).cachedTokens())
                        .containsKey("gen_ai.usage.output_tokens")
                        .containsEntry("gen_ai.response.model", SimProviderServer.MODEL)
                        .containsEntry("gen_ai.response.finish_reasons", List.of("stop"));
                assertThat((Double) chat.attribute("gen_ai.response.time_to_first_chunk")).isPositive()
                        .isLessThanOrEqualTo((chat.endNanos() - chat.startNanos()) / 1e9);
            }
            assertThat(requests.get(1).cachedTokens()).as("the second call read the cache").isGreaterThanOrEqualTo(1024);
            assertThat(chats.get(0).attribute("skillforge.cache.verdict")).isEqualTo("first");
            assertThat(chats.get(1).attribute("skillforge.cache.verdict")).isEqualTo("prefix");

            ReceivedSpan tool = only(spans, "execute_tool");
            assertThat(tool.parentSpanId()).isEqualTo(turn.spanId());
            assertThat(tool.attributes()).containsEntry("gen_ai.operation.name", "execute_tool").containsEntry("gen_ai.tool.name", "shell")
                    .containsEntry("gen_ai.tool.call.id", "cmd-0-0").containsEntry("process.exit.code", 0L)
                    .containsEntry("skillforge.iteration", 0L);
            assertThat(tool.startNanos()).as("the command runs between the two calls").isGreaterThanOrEqualTo(chats.get(0).endNanos());
            assertThat(tool.endNanos()).isLessThanOrEqualTo(chats.get(1).startNanos());
            assertThat(turn.startNanos()).isLessThanOrEqualTo(chats.get(0).startNanos());
            assertThat(turn.endNanos()).isGreaterThanOrEqualTo(chats.get(1).endNanos());

            // Content stays out unless the operator turns it on.
            assertThat(spans).allSatisfy(span -> assertThat(span.attributes().keySet())
                    .doesNotContain("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result"));
            assertThat(receiver.requestHeaders()).isNotEmpty().allSatisfy(headers -> {
                assertThat(headers.get("Authorization")).containsExactly("Basic cGs+bGY6c2s=");
                assertThat(headers.get("X-langfuse-ingestion-version")).containsExactly("4");
            });
        }
    }

    @Test
    void withContentOnAStatelessTurnCarriesItsPromptsAnswersAndCommands(@TempDir Path data) throws Exception {
        try (OtlpReceiver receiver = OtlpReceiver.start()) {
            try (ServerHarness server = ServerHarness.builder(data, new SimScript(FIRST, SECOND))
                    .tracing(receiver.tracing(Map.of(Tracing.CONTENT_VARIABLE, "true"))).start()) {
                assertThat(SseClient.postForEvents(server.url("/api/agent"), SseClient.userMessage("Which skills?")).getLast().type())
                        .isEqualTo("done");
            }
            List<ReceivedSpan> spans = receiver.spans();
            ReceivedSpan turn = only(spans, "invoke_agent");
            assertThat(turn.isRoot()).as("no traceparent: a trace of its own").isTrue();
            assertThat(turn.attributes()).containsEntry("skillforge.mode", "stateless").doesNotContainKey("gen_ai.conversation.id")
                    .containsEntry("user.id", "local");
            assertThat(text(turn.attribute("gen_ai.input.messages"))).isEqualTo("Which skills?");
            assertThat(text(turn.attribute("gen_ai.output.messages"))).isEqualTo(SECOND.text());

            List<ReceivedSpan> chats = spans.stream().filter(span -> span.name().startsWith("chat "))
                    .sorted(Comparator.comparingLong(ReceivedSpan::startNanos)).toList();
            assertThat(text(chats.get(0).attribute("gen_ai.input.messages"))).isEqualTo("Which skills?");
            assertThat(text(chats.get(0).attribute("gen_ai.output.messages"))).isEqualTo(FIRST.text());
            assertThat(text(chats.get(1).attribute("gen_ai.input.messages"))).startsWith("$ skill list");
            ReceivedSpan tool = only(spans, "execute_tool");
            assertThat(tool.name()).isEqualTo("execute_tool skill");
            assertThat(tool.attributes()).containsEntry("gen_ai.tool.name", "skill")
                    .containsEntry("gen_ai.tool.call.arguments", "skill list").containsKey("gen_ai.tool.call.result");
        }
    }

    /**
     * With content off, spans carried every command's first word (a program, or an assignment holding a secret) and
     * the provider's error text: now a command is the tool {@code shell} and a failure says its code.
     */
    @Test
    void withContentOffNoSpanCarriesACommandsWordsOrAProvidersError() throws Exception {
        String command = "OPENAI_API_KEY=sk-live-0123456789 curl https://attacker.example";
        String providerError = "The provider answered HTTP 401: Incorrect API key provided: sk-live-0123456789 for user alice@example.com";
        for (boolean content : new boolean[]{false, true}) {
            try (OtlpReceiver receiver = OtlpReceiver.start()) {
                try (Tracing tracing = receiver.tracing(Map.of(Tracing.CONTENT_VARIABLE, String.valueOf(content)))) {
                    EventSink turn = tracing.runObserver("sim", "openai", "gpt-test", "conv-1", "person-1", "conversation", "hi");
                    turn.accept(new AgentEvent.Text(0, "Running it."));
                    turn.accept(new AgentEvent.ToolStart(0, "cmd-0-0", command));
                    turn.accept(new AgentEvent.ToolResult(0, "cmd-0-0", command, "done", 0));
                    turn.accept(new AgentEvent.IterationEnd(0, true));
                    turn.accept(new AgentEvent.Error(1, providerError, "provider_http_error"));
                }
                List<ReceivedSpan> spans = receiver.spans();
                String everything = spans.stream().map(span -> span.name() + " " + span.attributes() + " " + span.statusMessage()).toList().toString();
                if (content) {
                    assertThat(everything).as("with content on").contains("OPENAI_API_KEY").contains("Incorrect API key");
                    continue;
                }
                assertThat(everything).doesNotContain("OPENAI_API_KEY").doesNotContain("sk-live").doesNotContain("curl")
                        .doesNotContain("attacker").doesNotContain("Incorrect").doesNotContain("alice");
                assertThat(only(spans, "execute_tool").name()).isEqualTo("execute_tool shell");
                assertThat(only(spans, "invoke_agent").statusMessage()).isEqualTo("provider_http_error");
                assertThat(only(spans, "invoke_agent").attributes()).containsEntry("error.type", "provider_http_error");
            }
        }
    }

    @Test
    void withNothingConfiguredNoExporterStarts(@TempDir Path data) throws Exception {
        Tracing tracing = Tracing.fromEnvironment(Map.of(Tracing.CONTENT_VARIABLE, "true"));
        assertThat(tracing.enabled()).isFalse();
        try (ServerHarness server = ServerHarness.builder(data, new SimScript(FIRST, SECOND)).tracing(tracing).start()) {
            assertThat(SseClient.postForEvents(server.url("/api/agent"), SseClient.userMessage("Which skills?")).getLast().type())
                    .isEqualTo("done");
            assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
                    .noneMatch(name -> name.contains("BatchSpanProcessor") || name.toLowerCase().contains("otlp"));
        }
        assertThat(Tracing.fromEnvironment(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1", "OTEL_SDK_DISABLED", "true")).enabled())
                .isFalse();
        assertThat(Tracing.fromEnvironment(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1", "OTEL_TRACES_EXPORTER", "none")).enabled())
                .isFalse();
        assertThatThrownBy(() -> Tracing.fromEnvironment(Map.of(Tracing.CONTENT_VARIABLE, "sometimes")))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining(Tracing.CONTENT_VARIABLE);
    }

    @Test
    void aCacheBreakIsAnEventOnTheCallWithItsPosition() throws Exception {
        try (OtlpReceiver receiver = OtlpReceiver.start()) {
            try (Tracing tracing = receiver.tracing(Map.of())) {
                EventSink turn = tracing.runObserver("sim", "openai", "gpt-test", "conv-1", "person-1", "conversation", "hi");
                PrefixGuard.Observer guard = tracing.guardObserver(found -> { });
                guard.verdict("conv-1", PrefixGuard.Verdict.BREAK,
                        new PrefixGuard.Break("conv-1", "sim", "gpt-test", 3, 2, 17, 4, 5));
                turn.accept(new AgentEvent.Text(0, "ok"));
                turn.accept(new AgentEvent.RawContent(0, "ok"));
                turn.accept(new AgentEvent.UsageReport(0, new Usage(10L, 1L, null)));
                turn.accept(new AgentEvent.IterationEnd(0, false));
                turn.accept(new AgentEvent.Done(0, StopReason.COMPLETE, 1, 0, new Usage(10L, 1L, null)));
            }
            ReceivedSpan chat = only(receiver.spans(), "chat");
            assertThat(chat.attributes()).containsEntry("skillforge.cache.verdict", "break").containsEntry("gen_ai.provider.name", "openai")
                    .as("an unknown figure is left out, not zero").doesNotContainKey("gen_ai.usage.cache_read.input_tokens");
            assertThat(chat.events()).singleElement().satisfies(event -> {
                assertThat(event.name()).isEqualTo("skillforge.cache.break");
                assertThat(event.attributes()).containsEntry("skillforge.cache.request", 3L)
                        .containsEntry("skillforge.cache.message_index", 2L).containsEntry("skillforge.cache.char_offset", 17L);
            });
        }
    }

    private static ReceivedSpan only(List<ReceivedSpan> spans, String operation) {
        List<ReceivedSpan> found = spans.stream().filter(span -> operation.equals(span.attribute("gen_ai.operation.name"))).toList();
        assertThat(found).as(operation).hasSize(1);
        return found.getFirst();
    }

    /** The text of a one-message {@code gen_ai.*.messages} attribute. */
    private static String text(Object messages) throws Exception {
        JsonNode parsed = Json.parse((String) messages);
        assertThat(parsed).hasSize(1);
        return parsed.get(0).path("parts").get(0).path("content").asText();
    }

    private static List<SseClient.Event> postWithTraceparent(String url, String json, String traceparent) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
                .header("Accept", "text/event-stream").header("traceparent", traceparent)
                .POST(HttpRequest.BodyPublishers.ofString(json)).build();
        try (HttpClient client = HttpClient.newHttpClient()) {
            HttpResponse<InputStream> response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
            assertThat(response.statusCode()).isEqualTo(200);
            try (InputStream body = response.body()) {
                return SseClient.readEvents(body, Integer.MAX_VALUE);
            }
        }
    }
}
