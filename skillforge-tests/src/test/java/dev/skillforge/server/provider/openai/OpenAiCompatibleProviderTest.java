package dev.skillforge.server.provider.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.agent.ModelReply;
import dev.skillforge.core.agent.ProviderException;
import dev.skillforge.core.agent.Usage;
import dev.skillforge.core.transcript.Entry;
import dev.skillforge.core.transcript.ProviderReplay;
import dev.skillforge.server.json.Json;
import dev.skillforge.testkit.RecordingListener;
import dev.skillforge.server.provider.RetryPolicy;
import dev.skillforge.server.provider.SimProviderTestBase;
import dev.skillforge.server.provider.StreamingHttp;
import dev.skillforge.server.provider.sim.SimProviderServer;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.server.provider.sim.SimRequest;
import dev.skillforge.testkit.SimScript;
import dev.skillforge.server.provider.sim.TokenCounter;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The OpenAI-compatible client over real loopback HTTP against the simulated provider: streaming,
 * reasoning replay, HTTP errors and retries, mid-stream faults, stalls, stops, and the request bytes.
 */
class OpenAiCompatibleProviderTest extends SimProviderTestBase {

    OpenAiCompatibleProviderTest() {
        super(RecordingListener.withoutSources()); // chat completions carry no sources
    }

    // ================================================================ streaming

    @Test
    void streamsTextChunksInOrderAndReportsTheSimulatedUsage() throws Exception {
        script.then(SimReply.of("Hel", "lo, ", "world", "!"));

        ModelReply reply = provider(FAST_RETRY).stream(call(new Entry.User("Say hello.")), listener, cancellation);

        // the first chunk is the role chunk with empty content, as OpenAI sends it
        assertThat(listener.text).containsExactly("", "Hel", "lo, ", "world", "!");
        assertThat(listener.reasoning).isEmpty();
        assertThat(reply.replay()).isNull();
        SimRequest request = sim.requests().getFirst();
        assertThat(reply.usage()).isEqualTo(new Usage(request.promptTokens(), (long) TokenCounter.count("Hello, world!"),
                request.cachedTokens()));
        assertThat(reply.usage().cacheReadTokens()).isZero();
        assertThat(sim.requests()).hasSize(1);
    }

    @Test
    void reasoningChunksGoToOnReasoningAndComeBackAsReplay() throws Exception {
        String reasoning1 = "Let me think\u2026 ";
        String reasoning2 = "\"quoted\"\n\ttabbed é 😀  trailing ";
        script.then(SimReply.of("Answer.").withReasoning(reasoning1, reasoning2));

        ModelReply reply = provider(FAST_RETRY).stream(call(new Entry.User("Why?")), listener, cancellation);

        assertThat(listener.reasoning).containsExactly(reasoning1, reasoning2);
        assertThat(listener.text).containsExactly("", "Answer.");
        assertThat(reply.replay()).isEqualTo(new ProviderReplay(OpenAiChatRequest.REASONING_REPLAY, reasoning1 + reasoning2));
    }

    @Test
    void replayedReasoningIsSentBackByteForByteAsReasoningContentOnTheNextCall() throws Exception {
        String reasoning = "Let me think\u2026 \"quoted\"\n\ttabbed é 😀  trailing ";
        script.then(SimReply.of("Answer.").withReasoning("Let me think\u2026 ", "\"quoted\"\n\ttabbed é 😀  trailing "))
                .then(SimReply.of("Second."));
        OpenAiCompatibleProvider provider = provider(FAST_RETRY);

        ModelReply first = provider.stream(call(new Entry.User("Why?")), listener, cancellation);
        provider.stream(call(new Entry.User("Why?"), new Entry.Assistant("Answer.", first.replay()), new Entry.User("And then?")),
                RecordingListener.withoutSources(), cancellation);

        SimRequest second = sim.requests().get(1);
        JsonNode assistant = second.messages().get(2);
        assertThat(Json.write(assistant)).isEqualTo("{\"role\":\"assistant\",\"content\":\"Answer.\",\"reasoning_content\":"
                + Json.write(new TextNode(reasoning)) + "}");
        assertThat(assistant.get("reasoning_content").asText()).isEqualTo(reasoning);
        assertThat(second.body()).contains("\"reasoning_content\":" + Json.write(new TextNode(reasoning)));
        // the first request carried no reasoning_content: there was nothing to replay yet
        assertThat(sim.requests().getFirst().body()).doesNotContain("reasoning_content");
    }

    @Test
    void replayOfAnotherFormatIsNotSentAsReasoningContent() throws Exception {
        script.then(SimReply.of("ok"));

        provider(FAST_RETRY).stream(call(new Entry.User("q"),
                new Entry.Assistant("a", new ProviderReplay("gemini.parts", "[{\"text\":\"a\"}]")),
                new Entry.User("q2")), listener, cancellation);

        assertThat(sim.requests().getFirst().messages().get(2).toString())
                .isEqualTo("{\"role\":\"assistant\",\"content\":\"a\"}");
    }

    // ================================================================ HTTP errors and retries

    @Test
    void http401IsAProviderHttpErrorWithTheProvidersMessageAndIsNotRetried() {
        script.then(SimReply.of().withFault(new SimReply.HttpError(401, "Incorrect API key provided", null)));

        ProviderException e = failure(() -> provider(FAST_RETRY).stream(call(new Entry.User("hi")), listener, cancellation));

        assertThat(e.code()).isEqualTo("provider_http_error");
        assertThat(e.getMessage()).contains("401").contains("Incorrect API key provided")
                .isEqualTo("The provider answered HTTP 401: Incorrect API key provided (sim_error)");
        assertThat(sim.requests()).hasSize(1);
        assertThat(listener.text).isEmpty();
    }

    @Test
    void http400IsNotRetriedEither() {
        script.then(SimReply.of().withFault(new SimReply.HttpError(400, "messages: too long", null)))
                .then(SimReply.of("must not be asked"));

        ProviderException e = failure(() -> provider(FAST_RETRY).stream(call(new Entry.User("hi")), listener, cancellation));

        assertThat(e.code()).isEqualTo("provider_http_error");
        assertThat(e.getMessage()).isEqualTo("The provider answered HTTP 400: messages: too long (sim_error)");
        assertThat(sim.requests()).hasSize(1);
        assertThat(script.remaining()).isEqualTo(1);
    }

    @Test
    void http503TwiceThenSuccessSucceedsOnTheThirdRequestWithTheSameBody() throws Exception {
        script.then(SimReply.of().withFault(new SimReply.HttpError(503, "overloaded", null)))
                .then(SimReply.of().withFault(new SimReply.HttpError(503, "still overloaded", null)))
                .then(SimReply.of("Fine", " now."));

        ModelReply reply = provider(FAST_RETRY).stream(call(new Entry.User("hi")), listener, cancellation);

        assertThat(listener.text).containsExactly("", "Fine", " now.");
        assertThat(reply.usage().outputTokens()).isEqualTo(TokenCounter.count("Fine now."));
        assertThat(sim.requests()).hasSize(3);
        assertThat(sim.requests()).extracting(SimRequest::body).containsOnly(sim.requests().getFirst().body());
    }

    @Test
    void http429WithRetryAfterOneSecondWaitsAboutOneSecond() throws Exception {
        script.then(SimReply.of().withFault(new SimReply.HttpError(429, "Rate limit reached", "1")))
                .then(SimReply.of("ok"));
        RetryPolicy honoursRetryAfter = new RetryPolicy(1, Duration.ofMillis(10), Duration.ofSeconds(5));

        long start = System.nanoTime();
        provider(honoursRetryAfter).stream(call(new Entry.User("hi")), listener, cancellation);
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(sim.requests()).hasSize(2);
        assertThat(listener.text).containsExactly("", "ok");
        assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(900)).isLessThan(TIMEOUT);
    }

    @Test
    void retriesExhaustedFailWithTheLastStatusAndMessage() {
        script.then(SimReply.of().withFault(new SimReply.HttpError(503, "first", null)))
                .then(SimReply.of().withFault(new SimReply.HttpError(429, "second", "0")))
                .then(SimReply.of().withFault(new SimReply.HttpError(502, "last straw", null)))
                .then(SimReply.of("must not be asked"));

        ProviderException e = failure(() -> provider(FAST_RETRY).stream(call(new Entry.User("hi")), listener, cancellation));

        assertThat(e.code()).isEqualTo("provider_http_error");
        assertThat(e.getMessage()).isEqualTo("The provider answered HTTP 502: last straw (sim_error)");
        assertThat(sim.requests()).hasSize(3);
        assertThat(script.remaining()).isEqualTo(1);
    }

    @Test
    void connectionRefusedIsProviderUnreachableAfterTheRetries() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        RetryPolicy retry = new RetryPolicy(2, Duration.ofMillis(200), Duration.ofSeconds(1));
        var provider = new OpenAiCompatibleProvider(new OpenAiCompatibleProvider.Settings(
                "http://127.0.0.1:" + closedPort + "/v1", "test-key", SimProviderServer.MODEL, true, TIMEOUTS, retry));

        long start = System.nanoTime();
        ProviderException e = failure(() -> provider.stream(call(new Entry.User("hi")), listener, cancellation));
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(e.code()).isEqualTo("provider_unreachable");
        assertThat(e.getMessage()).startsWith("The provider is unreachable (could not connect: ");
        // two retries waited 200 ms and 400 ms before giving up
        assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(550)).isLessThan(TIMEOUT);
    }

    @Test
    void cancelWhileARetryIsPendingEndsTheCallWithoutWaitingOutRetryAfter() throws Exception {
        CountDownLatch asked = new CountDownLatch(1);
        SimScript slowRetry = new SimScript(SimReply.of().withFault(new SimReply.HttpError(503, "busy", "30")), SimReply.of("late"));
        restartSim(messages -> {
            SimReply reply = slowRetry.reply(messages);
            asked.countDown();
            return reply;
        });
        RetryPolicy longWait = new RetryPolicy(2, Duration.ofSeconds(30), Duration.ofSeconds(60));
        Future<ModelReply> running = inBackground(provider(longWait), call(new Entry.User("hi")), listener);

        assertThat(asked.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        cancellation.cancel("stop pressed");

        ProviderException e = backgroundFailure(running, TIMEOUT);
        assertThat(e.code()).isEqualTo("cancelled");
        assertThat(sim.requests()).hasSize(1);
    }

    // ================================================================ mid-stream faults

    @Test
    void errorMidStreamAfterTwoChunksIsAProviderStreamErrorAfterTheChunksWereDelivered() {
        script.then(SimReply.of("one ", "two ", "three").withFault(new SimReply.StreamError(2, "quota exceeded")))
                .then(SimReply.of("must not be asked"));

        ProviderException e = failure(() -> provider(FAST_RETRY).stream(call(new Entry.User("hi")), listener, cancellation));

        assertThat(e.code()).isEqualTo("provider_stream_error");
        assertThat(e.getMessage()).isEqualTo("The provider reported an error mid-stream: quota exceeded (sim_error)");
        assertThat(listener.text).containsExactly("", "one ", "two ");
        assertThat(sim.requests()).hasSize(1);
    }

    @Test
    void truncatedStreamIsProviderStreamTruncated() {
        script.then(SimReply.of("a", "b", "c").withFault(new SimReply.Truncate(2)))
                .then(SimReply.of("must not be asked"));

        ProviderException e = failure(() -> provider(FAST_RETRY).stream(call(new Entry.User("hi")), listener, cancellation));

        assertThat(e.code()).isEqualTo("provider_stream_truncated");
        assertThat(e.getMessage()).isEqualTo("The provider stream ended without [DONE]: the answer is incomplete");
        assertThat(listener.text).containsExactly("", "a", "b");
        assertThat(sim.requests()).hasSize(1);
    }

    @Test
    void silenceLongerThanTheIdleTimeoutIsProviderTimeout() {
        script.then(SimReply.of("before", "never").withFault(new SimReply.Silence(1, Duration.ofSeconds(5))));
        var provider = provider(FAST_RETRY, timeouts(Duration.ofSeconds(1)));

        long start = System.nanoTime();
        ProviderException e = failure(() -> provider.stream(call(new Entry.User("hi")), listener, cancellation));
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(e.code()).isEqualTo("provider_timeout");
        assertThat(e.getMessage()).isEqualTo("The provider stream stalled: nothing arrived for 1 s");
        assertThat(listener.text).containsExactly("", "before");
        assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(900)).isLessThan(TIMEOUT);
        assertThat(sim.requests()).hasSize(1);
    }

    @Test
    void cancelFromAnotherThreadDuringAStallEndsTheCallWithinASecondAndTheProviderSeesTheAbort() throws Exception {
        RecordingListener signalling = RecordingListener.withoutSources();
        Future<ModelReply> running = stallingCall(provider(FAST_RETRY, timeouts(Duration.ofSeconds(60))), signalling);

        cancellation.cancel("stop pressed");

        ProviderException e = backgroundFailure(running, Duration.ofSeconds(1));
        assertThat(e).isNotNull();
        assertThat(sim.awaitAbort(TIMEOUT)).as("the provider saw the request aborted").isTrue();
        assertThat(sim.aborts()).isEqualTo(1);
        assertThat(signalling.text).containsExactly("", "before");
    }

    @Test
    void cancelDuringAStallIsReportedAsCancelledNotAsABrokenConnection() throws Exception {
        Future<ModelReply> running = stallingCall(provider(FAST_RETRY, timeouts(Duration.ofSeconds(60))), RecordingListener.withoutSources());

        cancellation.cancel("stop pressed");

        ProviderException e = backgroundFailure(running, Duration.ofSeconds(1));
        assertThat(e.code()).isEqualTo("cancelled");
        assertThat(e.getMessage()).isEqualTo("the run was stopped");
    }

    @Test
    void cancelWhileWaitingForTheResponseHeadersEndsTheCallAtOnce() throws Exception {
        CountDownLatch asked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        restartSim(messages -> {
            asked.countDown();
            try {
                release.await(30, TimeUnit.SECONDS); // a provider that takes its time before answering at all
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return SimReply.of("late");
        });
        try {
            Future<ModelReply> running = inBackground(provider(FAST_RETRY), call(new Entry.User("hi")), listener);
            assertThat(asked.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();

            cancellation.cancel("stop pressed");

            ProviderException e = backgroundFailure(running, Duration.ofSeconds(1));
            assertThat(e.code()).isEqualTo("cancelled");
            assertThat(listener.text).isEmpty();
        } finally {
            release.countDown();
        }
    }

    @Test
    void alreadyCancelledCallFailsAtOnceAsCancelled() throws Exception {
        script.then(SimReply.of("never"));
        cancellation.cancel("stopped before the call");
        Future<ModelReply> running = inBackground(provider(FAST_RETRY), call(new Entry.User("hi")), listener);

        ProviderException e = backgroundFailure(running, Duration.ofSeconds(5));

        assertThat(e.code()).isEqualTo("cancelled");
        assertThat(listener.text).isEmpty();
    }

    // ================================================================ the request

    @Test
    void requestBodyAsksForAStreamWithUsageAndTheCallsCacheKeySystemFirstAndToolOutputAsUser() throws Exception {
        script.then(SimReply.of("ok"));

        provider(FAST_RETRY).stream(call(
                new Entry.User("List my skills."),
                new Entry.Assistant("Checking.\n<shell>skill list</shell>"),
                new Entry.Tool("$ skill list\ncold-brew")), listener, cancellation);

        SimRequest request = sim.requests().getFirst();
        JsonNode json = request.json();
        assertThat(json.get("model").asText()).isEqualTo(SimProviderServer.MODEL);
        assertThat(json.get("stream").isBoolean()).isTrue();
        assertThat(json.get("stream").booleanValue()).isTrue();
        assertThat(json.get("stream_options").get("include_usage").booleanValue()).isTrue();
        assertThat(json.get("prompt_cache_key").asText()).isEqualTo(CACHE_KEY);
        assertThat(request.cacheKey()).isEqualTo(CACHE_KEY);
        JsonNode messages = request.messages();
        assertThat(messages).hasSize(4);
        assertThat(messages.get(0).toString()).isEqualTo("{\"role\":\"system\",\"content\":\"You forge skills.\"}");
        assertThat(messages.get(1).toString()).isEqualTo("{\"role\":\"user\",\"content\":\"List my skills.\"}");
        assertThat(messages.get(2).toString()).isEqualTo("{\"role\":\"assistant\",\"content\":\"Checking.\\n<shell>skill list</shell>\"}");
        assertThat(messages.get(3).get("role").asText()).isEqualTo("user");
        assertThat(messages.get(3).get("content").asText()).startsWith("[Shell Output]\n")
                .isEqualTo("[Shell Output]\n$ skill list\ncold-brew");
        assertThat(request.body()).isEqualTo("{\"model\":\"skillforge-sim-1\",\"messages\":["
                + "{\"role\":\"system\",\"content\":\"You forge skills.\"},"
                + "{\"role\":\"user\",\"content\":\"List my skills.\"},"
                + "{\"role\":\"assistant\",\"content\":\"Checking.\\n<shell>skill list</shell>\"},"
                + "{\"role\":\"user\",\"content\":\"[Shell Output]\\n$ skill list\\ncold-brew\"}],"
                + "\"stream\":true,\"stream_options\":{\"include_usage\":true},\"prompt_cache_key\":\"conv-42\"}");
    }

    @Test
    void promptCacheKeyIsLeftOutWhenTheSettingsSaySo() throws Exception {
        script.then(SimReply.of("ok"));
        var provider = new OpenAiCompatibleProvider(new OpenAiCompatibleProvider.Settings(
                sim.baseUrl(), null, SimProviderServer.MODEL, false, TIMEOUTS, FAST_RETRY));

        provider.stream(call(new Entry.User("hi")), listener, cancellation);

        assertThat(sim.requests().getFirst().json().has("prompt_cache_key")).isFalse();
        assertThat(sim.requests().getFirst().cacheKey()).isNull();
    }

    @Test
    void theSameModelCallSerialisesToIdenticalBytesTwice() throws Exception {
        script.then(SimReply.of("one")).then(SimReply.of("two"));
        ModelCall call = call(new Entry.User("Ünïcödé \"quotes\" \\ and\ttabs  "),
                new Entry.Assistant("<shell>skill list</shell>", new ProviderReplay(OpenAiChatRequest.REASONING_REPLAY, " think\n")),
                new Entry.Tool("$ skill list\n(none)\n"));
        // an equal call built from fresh objects, as when the transcript is loaded again
        ModelCall equalCall = new ModelCall(new String(SYSTEM), List.of(
                new Entry.User(new String("Ünïcödé \"quotes\" \\ and\ttabs  ")),
                new Entry.Assistant(new String("<shell>skill list</shell>"), new ProviderReplay(OpenAiChatRequest.REASONING_REPLAY, new String(" think\n"))),
                new Entry.Tool(new String("$ skill list\n(none)\n"))), new String(CACHE_KEY));
        assertThat(equalCall).isEqualTo(call);
        OpenAiCompatibleProvider provider = provider(FAST_RETRY);

        provider.stream(call, listener, cancellation);
        provider.stream(equalCall, RecordingListener.withoutSources(), cancellation);

        assertThat(sim.requests()).hasSize(2);
        assertThat(sim.requests().get(1).body()).isEqualTo(sim.requests().get(0).body());
        byte[] once = Json.bytes(OpenAiChatRequest.build(call, SimProviderServer.MODEL, true));
        byte[] twice = Json.bytes(OpenAiChatRequest.build(call, SimProviderServer.MODEL, true));
        assertThat(twice).isEqualTo(once);
        assertThat(new String(once, java.nio.charset.StandardCharsets.UTF_8)).isEqualTo(sim.requests().getFirst().body());
    }

    @Test
    void aLongerTranscriptSerialisesToAnExtensionOfTheShorterOnesMessages() throws Exception {
        ModelCall shorter = call(new Entry.User("a"));
        ModelCall longer = call(new Entry.User("a"), new Entry.Assistant("b"), new Entry.User("c"));

        String shorterMessages = Json.write(OpenAiChatRequest.messages(shorter));
        String longerMessages = Json.write(OpenAiChatRequest.messages(longer));

        assertThat(longerMessages).startsWith(shorterMessages.substring(0, shorterMessages.length() - 1) + ",");
    }

    @Test
    void aContextCutIsSentAsAUserMessageHoldingItsNote() {
        ModelCall call = call(new Entry.ContextCut("[Context note] 4 messages left out", 4), new Entry.User("Tea?"));

        assertThat(Json.write(OpenAiChatRequest.messages(call))).isEqualTo("[{\"role\":\"system\",\"content\":\"You forge skills.\"},"
                + "{\"role\":\"user\",\"content\":\"[Context note] 4 messages left out\"},{\"role\":\"user\",\"content\":\"Tea?\"}]");
    }

    // ================================================================ error bodies

    @Test
    void errorMessageIsReadFromTheCommonErrorBodyShapes() {
        assertThat(OpenAiCompatibleProvider.errorMessage("{\"error\":{\"message\":\"bad key\",\"type\":\"auth\"}}"))
                .isEqualTo("bad key (auth)");
        assertThat(OpenAiCompatibleProvider.errorMessage("{\"error\":\"model not found\"}")).isEqualTo("model not found");
        assertThat(OpenAiCompatibleProvider.errorMessage("{\"message\":\"Forbidden\"}")).isEqualTo("Forbidden");
        assertThat(OpenAiCompatibleProvider.errorMessage("  upstream timed out\n")).isEqualTo("upstream timed out");
        assertThat(OpenAiCompatibleProvider.errorMessage("\n")).isEqualTo("(no message)");
        assertThat(OpenAiCompatibleProvider.errorMessage("x".repeat(600))).isEqualTo("x".repeat(500) + "…");
    }

    // ================================================================ helpers

    private OpenAiCompatibleProvider provider(RetryPolicy retry) {
        return provider(retry, TIMEOUTS);
    }

    private OpenAiCompatibleProvider provider(RetryPolicy retry, StreamingHttp.Timeouts timeouts) {
        return new OpenAiCompatibleProvider(new OpenAiCompatibleProvider.Settings(
                sim.baseUrl(), "test-key", SimProviderServer.MODEL, true, timeouts, retry));
    }
}
