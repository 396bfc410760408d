package dev.skillforge.server.provider;

import dev.skillforge.testkit.RecordingListener;
import dev.skillforge.testkit.TestImages;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.agent.ModelProvider;
import dev.skillforge.core.agent.ModelReply;
import dev.skillforge.core.agent.ProviderException;
import dev.skillforge.core.agent.Usage;
import dev.skillforge.core.transcript.Attachment;
import dev.skillforge.core.transcript.Entry;
import dev.skillforge.core.transcript.ProviderReplay;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.provider.sim.SimProviderServer;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.server.provider.sim.SimRequest;
import dev.skillforge.server.provider.sim.TokenCounter;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every provider client must do, run against each implementation talking to the simulated
 * provider in its own wire format over loopback HTTP: stream text and reasoning in order, report
 * usage (cached tokens included), fail clearly mid-stream and on HTTP errors with the provider's own
 * message, retry what may be retried, stop at once when cancelled, and replay what the provider
 * needs: the second request of a tool loop carries the first answer's provider-native pieces byte
 * for byte. Each implementation's test extends this class and says how to build its client and where
 * its pieces are on the wire, and whether its format reports cache writes.
 */
public abstract class ProviderConformanceTest extends SimProviderTestBase {

    /** The key every implementation's client is configured with. */
    protected static final String API_KEY = "test-key-5f3a9c";
    /** A system prompt long enough for every simulated cache rule (over 1024 tokens). */
    protected static final String LONG_SYSTEM = "You forge skills. " + "Skills are folders with a SKILL.md file. ".repeat(200);

    /** The client under test, pointed at {@code sim} in its wire format. */
    protected abstract ModelProvider provider(SimProviderServer sim, StreamingHttp.Timeouts timeouts, RetryPolicy retry);

    /** The simulation's name for the wire format the client speaks: {@code openai} or {@code gemini}. */
    protected abstract String format();

    /** The exact bytes {@code replay} must appear as in the next request's body. */
    protected abstract String replayOnTheWire(ProviderReplay replay);

    /** Checks that the stored replay holds what streamed: the reasoning and, where the format has one, the signature. */
    protected abstract void assertReplayHolds(ProviderReplay replay, String reasoning, String signature) throws Exception;

    /**
     * The person's message with one image and text, exactly as the vendor documents it on the wire (OpenAI: an
     * {@code image_url} part with a base64 {@code data:} URL, then a text part; Gemini: an {@code inline_data} part, then a
     * text part; Anthropic: an {@code image} block with a base64 source, then a text block).
     */
    protected abstract String personMessageWithImage(String mediaType, String base64, String text);

    /** The index of the first message of the conversation in {@link SimRequest#conversation()} (after a system message, where there is one). */
    protected abstract int firstMessageIndex();

    /** Whether the client reports the simulation's sources (Gemini's grounding, GLM's web search). */
    protected abstract boolean reportsSources();

    /** The cache writes the client reports for {@code request}: what the simulation wrote where the format reports writes (Anthropic), else unknown. */
    protected Long cacheWriteTokens(SimRequest request) {
        return null;
    }

    // ================================================================ streaming

    @Test
    void textStreamsInOrderAndUsageIsWhatTheProviderCounted() throws Exception {
        script.then(SimReply.of("Hel", "lo, ", "world", "!"));

        ModelReply reply = provider().stream(call(new Entry.User("Say hello.")), listener, cancellation);

        assertThat(nonEmpty(listener.text)).containsExactly("Hel", "lo, ", "world", "!");
        assertThat(listener.reasoning).isEmpty();
        SimRequest request = sim.requests().getFirst();
        assertThat(request.format()).isEqualTo(format());
        assertThat(reply.usage()).isEqualTo(new Usage(request.promptTokens(), (long) TokenCounter.count("Hello, world!"), 0L,
                cacheWriteTokens(request)));
    }

    @Test
    void reasoningStreamsAsReasoningAndCountsAsOutput() throws Exception {
        String first = "Let me think\u2026 ";
        String second = "\"quoted\"\n\ttabbed é 😀  trailing ";
        script.then(SimReply.of("Answer.").withReasoning(first, second));

        ModelReply reply = provider().stream(call(new Entry.User("Why?")), listener, cancellation);

        assertThat(listener.reasoning).containsExactly(first, second);
        assertThat(nonEmpty(listener.text)).containsExactly("Answer.");
        assertThat(reply.replay()).isNotNull();
        assertReplayHolds(reply.replay(), first + second, null);
        assertThat(reply.usage().outputTokens()).isEqualTo(TokenCounter.count("Answer.") + TokenCounter.count(first + second));
    }

    @Test
    void aCallThatExtendsThePreviousOneReportsTheCachedPrefix() throws Exception {
        script.then(SimReply.of("First answer.")).then(SimReply.of("Second answer."));
        ModelProvider provider = provider();

        ModelReply first = provider.stream(new ModelCall(LONG_SYSTEM, List.of(new Entry.User("One?")), CACHE_KEY), listener, cancellation);
        ModelReply second = provider.stream(new ModelCall(LONG_SYSTEM, List.of(new Entry.User("One?"),
                new Entry.Assistant("First answer.", first.replay()), new Entry.User("Two?")), CACHE_KEY), new RecordingListener(), cancellation);

        SimRequest firstRequest = sim.requests().get(0);
        SimRequest secondRequest = sim.requests().get(1);
        assertThat(firstRequest.promptTokens()).isGreaterThan(1024);
        assertThat(first.usage().cacheReadTokens()).isZero();
        assertThat(secondRequest.cachedTokens()).isGreaterThanOrEqualTo(1024).isLessThan(secondRequest.promptTokens());
        assertThat(second.usage()).isEqualTo(new Usage(secondRequest.promptTokens(),
                (long) TokenCounter.count("Second answer."), secondRequest.cachedTokens(), cacheWriteTokens(secondRequest)));
    }

    @Test
    void sourcesAreReportedOnceEachWhereTheWireFormatCarriesThem() throws Exception {
        script.then(SimReply.of("Grounded.").withSources(new SimReply.Source("https://a.example/1", "A page"),
                new SimReply.Source("https://b.example/2", "B page")));

        provider().stream(call(new Entry.User("Search it.")), listener, cancellation);

        if (reportsSources()) {
            assertThat(listener.sources).containsExactly("https://a.example/1 A page", "https://b.example/2 B page");
        } else {
            assertThat(listener.sources).isEmpty();
        }
        assertThat(nonEmpty(listener.text)).containsExactly("Grounded.");
    }

    // ================================================================ images

    @Test
    void anImageGoesOnTheWireAsTheVendorDocumentsItAndTheNextRequestCarriesTheSameBytes() throws Exception {
        script.then(SimReply.of("A blue square.")).then(SimReply.of("Still blue."));
        byte[] png = TestImages.png(64, 48);
        String base64 = java.util.Base64.getEncoder().encodeToString(png);
        Attachment image = Attachment.image("abc", "shot.png", "image/png", png.length, new Attachment.Image(64, 48, base64));
        Entry.User asked = new Entry.User("What is this?", List.of(image));
        ModelProvider provider = provider();

        ModelReply first = provider.stream(new ModelCall(LONG_SYSTEM, List.of(asked), CACHE_KEY), listener, cancellation);
        provider.stream(new ModelCall(LONG_SYSTEM, List.of(asked, new Entry.Assistant("A blue square.", first.replay()), new Entry.User("Sure?")),
                CACHE_KEY), new RecordingListener(), cancellation);

        SimRequest one = sim.requests().get(0);
        SimRequest two = sim.requests().get(1);
        String sent = Json.write(one.conversation().get(firstMessageIndex()));
        assertThat(sent).isEqualTo(personMessageWithImage("image/png", base64, "What is this?"));
        assertThat(two.body()).as("the second request holds the first one's conversation byte for byte")
                .contains(Json.write(one.conversation()).substring(0, Json.write(one.conversation()).length() - 1));
        assertThat(Json.write(two.conversation().get(firstMessageIndex()))).isEqualTo(sent);
        assertThat(two.cachedTokens()).as("the simulation's prefix cache saw the same image").isPositive();
    }

    @Test
    void anImageWhoseBytesAreNotItsTypeIsRefusedByTheSimulationAsTheVendorWould() {
        byte[] png = TestImages.png(8, 8);
        Attachment lying = Attachment.image("abc", "shot.jpg", "image/jpeg", png.length,
                new Attachment.Image(8, 8, java.util.Base64.getEncoder().encodeToString(png)));

        ProviderException e = failure(() -> provider().stream(call(new Entry.User("What is this?", List.of(lying))), listener, cancellation));

        assertThat(e.getMessage()).contains("does not match the provided media type image/jpeg");
    }

    // ================================================================ failures

    @Test
    void errorMidStreamFailsAfterTheChunksBeforeItWereDelivered() {
        script.then(SimReply.of("one ", "two ", "three").withFault(new SimReply.StreamError(2, "quota exceeded")))
                .then(SimReply.of("must not be asked"));

        ProviderException e = failure(() -> provider().stream(call(new Entry.User("hi")), listener, cancellation));

        assertThat(e.code()).isEqualTo("provider_stream_error");
        assertThat(e.getMessage()).startsWith("The provider reported an error mid-stream: quota exceeded");
        assertThat(nonEmpty(listener.text)).containsExactly("one ", "two ");
        assertThat(sim.requests()).hasSize(1);
    }

    @Test
    void theKeyAndAnythingKeyLikeInAProvidersErrorAreNeverPassedOn() {
        script.then(SimReply.of().withFault(new SimReply.HttpError(401, "Incorrect API key provided: " + API_KEY
                        + " (sent as Authorization: Bearer " + API_KEY + ")", null)))
                .then(SimReply.of("one ").withFault(new SimReply.StreamError(1, "quota exceeded for sk-proj-Ab12Cd34Ef56Gh78")));

        ProviderException http = failure(() -> provider().stream(call(new Entry.User("hi")), listener, cancellation));
        ProviderException midStream = failure(() -> provider().stream(call(new Entry.User("hi")), listener, cancellation));

        assertThat(http.code()).isEqualTo("provider_http_error");
        assertThat(http.getMessage()).contains("Incorrect API key provided: [redacted] (sent as Authorization: Bearer [redacted])")
                .doesNotContain(API_KEY);
        assertThat(midStream.code()).isEqualTo("provider_stream_error");
        assertThat(midStream.getMessage()).startsWith("The provider reported an error mid-stream: quota exceeded for [redacted] (")
                .doesNotContain("sk-proj");
    }

    @Test
    void aProvidersErrorOfAnyLengthIsCutToTheMessageLimit() {
        script.then(SimReply.of("one ").withFault(new SimReply.StreamError(1, "overloaded ".repeat(100_000))));

        ProviderException e = failure(() -> provider().stream(call(new Entry.User("hi")), listener, cancellation));

        assertThat(e.getMessage()).startsWith("The provider reported an error mid-stream: overloaded overloaded").endsWith("…")
                .hasSize(ProviderErrors.MAX_MESSAGE_CHARS + 1);
    }

    @Test
    void answerCutOffByTheOutputLimitIsAFailureSoAHalfWrittenCommandIsNeverRun() {
        script.then(SimReply.of("<shell>skill set x\n", "---\nname: x").withFinishReason("MAX_TOKENS"));

        ProviderException e = failure(() -> provider().stream(call(new Entry.User("hi")), listener, cancellation));

        assertThat(e.code()).isIn("provider_finish_length", "provider_finish_max_tokens");
        assertThat(e.getMessage()).contains("output token limit").contains("cut off");
        assertThat(nonEmpty(listener.text)).containsExactly("<shell>skill set x\n", "---\nname: x");
    }

    @Test
    void streamThatEndsBeforeTheAnswerIsCompleteIsTruncated() {
        script.then(SimReply.of("a", "b", "c").withFault(new SimReply.Truncate(2)));

        ProviderException e = failure(() -> provider().stream(call(new Entry.User("hi")), listener, cancellation));

        assertThat(e.code()).isEqualTo("provider_stream_truncated");
        assertThat(nonEmpty(listener.text)).containsExactly("a", "b");
    }

    @Test
    void httpErrorCarriesTheStatusAndTheProvidersOwnMessageAndIsNotRetried() {
        script.then(SimReply.of().withFault(new SimReply.HttpError(401, "API key not valid", null)))
                .then(SimReply.of("must not be asked"));

        ProviderException e = failure(() -> provider().stream(call(new Entry.User("hi")), listener, cancellation));

        assertThat(e.code()).isEqualTo("provider_http_error");
        assertThat(e.getMessage()).startsWith("The provider answered HTTP 401: API key not valid");
        assertThat(sim.requests()).hasSize(1);
        assertThat(listener.text).isEmpty();
    }

    @Test
    void promptLongerThanTheContextWindowFailsWithTheProvidersWordsAndIsNotRetried() {
        restartSim(script, SimProviderServer.Options.DEFAULT.withContextWindow(1024));
        script.then(SimReply.of("must not be asked"));

        ProviderException e = failure(() -> provider().stream(new ModelCall(LONG_SYSTEM, List.of(new Entry.User("hi")), CACHE_KEY),
                listener, cancellation));

        assertThat(sim.requests()).hasSize(1);
        long prompt = sim.requests().getFirst().promptTokens();
        assertThat(e.code()).isEqualTo("provider_http_error");
        assertThat(e.getMessage()).startsWith("The provider answered HTTP 400: ").contains("1024").contains(String.valueOf(prompt));
        assertThat(script.remaining()).as("the model never saw the prompt").isEqualTo(1);
        assertThat(listener.text).isEmpty();
    }

    @Test
    void overloadedTwiceThenAnsweredSucceedsOnTheThirdRequestWithTheSameBytes() throws Exception {
        script.then(SimReply.of().withFault(new SimReply.HttpError(503, "overloaded", null)))
                .then(SimReply.of().withFault(new SimReply.HttpError(429, "slow down", "0")))
                .then(SimReply.of("Fine", " now."));

        provider().stream(call(new Entry.User("hi")), listener, cancellation);

        assertThat(nonEmpty(listener.text)).containsExactly("Fine", " now.");
        assertThat(sim.requests()).hasSize(3).extracting(SimRequest::body).containsOnly(sim.requests().getFirst().body());
    }

    @Test
    void retriesSpentFailWithTheLastStatusAndMessage() {
        script.then(SimReply.of().withFault(new SimReply.HttpError(503, "first", null)))
                .then(SimReply.of().withFault(new SimReply.HttpError(500, "second", null)))
                .then(SimReply.of().withFault(new SimReply.HttpError(502, "last straw", null)));

        ProviderException e = failure(() -> provider().stream(call(new Entry.User("hi")), listener, cancellation));

        assertThat(e.code()).isEqualTo("provider_http_error");
        assertThat(e.getMessage()).startsWith("The provider answered HTTP 502: last straw");
        assertThat(sim.requests()).hasSize(3);
    }

    @Test
    void silenceLongerThanTheIdleTimeoutIsATimeout() {
        script.then(SimReply.of("before", "never").withFault(new SimReply.Silence(1, Duration.ofSeconds(5))));

        ProviderException e = failure(() -> provider(sim, timeouts(Duration.ofSeconds(2)), FAST_RETRY)
                .stream(call(new Entry.User("hi")), listener, cancellation));

        assertThat(e.code()).isEqualTo("provider_timeout");
        assertThat(nonEmpty(listener.text)).containsExactly("before");
    }

    @Test
    void onlyKeepAlivesForLongerThanTheIdleTimeoutIsATimeoutToo() {
        script.then(SimReply.of("before", "never").withFault(new SimReply.Stall(1)));

        ProviderException e = failure(() -> provider(sim, timeouts(Duration.ofSeconds(2)), FAST_RETRY)
                .stream(call(new Entry.User("hi")), listener, cancellation));

        assertThat(e.code()).isEqualTo("provider_timeout");
        assertThat(e.getMessage()).isEqualTo("The provider sent only keep-alives for 2 s: no data");
    }

    // ================================================================ cancellation

    @Test
    void cancelDuringAStallEndsTheCallAsCancelledWithinASecondAndTheProviderSeesTheAbort() throws Exception {
        RecordingListener signalling = new RecordingListener();
        Future<ModelReply> running = stallingCall(provider(sim, timeouts(Duration.ofSeconds(60)), FAST_RETRY), signalling);

        cancellation.cancel("stop pressed");

        ProviderException e = backgroundFailure(running, Duration.ofSeconds(1));
        assertThat(e.code()).isEqualTo("cancelled");
        assertThat(sim.awaitAbort(TIMEOUT)).as("the provider saw the request aborted").isTrue();
        assertThat(nonEmpty(signalling.text)).containsExactly("before");
    }

    @Test
    void alreadyCancelledCallFailsAtOnceAsCancelled() throws Exception {
        script.then(SimReply.of("never"));
        cancellation.cancel("stopped before the call");

        ProviderException e = backgroundFailure(inBackground(provider(), call(new Entry.User("hi")), listener), Duration.ofSeconds(5));

        assertThat(e.code()).isEqualTo("cancelled");
        assertThat(listener.text).isEmpty();
    }

    // ================================================================ the replay rule and the request bytes

    @Test
    void secondRequestOfAToolLoopCarriesTheFirstAnswersNativePiecesByteForByte() throws Exception {
        String reasoning = "The person wants their skills: list them \"first\".\n";
        String signature = "c2ltLXNpZ25hdHVyZS0x+/=";
        script.then(SimReply.of("Let me look. ", "<shell>skill list</shell>").withReasoning(reasoning).withThoughtSignature(signature))
                .then(SimReply.of("You have none yet."));
        ModelProvider provider = provider();

        ModelReply first = provider.stream(call(new Entry.User("What skills do I have?")), listener, cancellation);
        assertReplayHolds(first.replay(), reasoning, signature);
        ModelReply second = provider.stream(call(new Entry.User("What skills do I have?"),
                new Entry.Assistant(listener.allText(), first.replay()),
                new Entry.Tool("$ skill list\nNo skills yet.")), new RecordingListener(), cancellation);

        SimRequest firstRequest = sim.requests().get(0);
        SimRequest secondRequest = sim.requests().get(1);
        assertThat(secondRequest.body()).contains(replayOnTheWire(first.replay()));
        assertThat(firstRequest.body()).doesNotContain(replayOnTheWire(first.replay()));
        // the prompt only grows: the second conversation starts with the first one's, byte for byte
        String before = Json.write(firstRequest.conversation());
        assertThat(Json.write(secondRequest.conversation())).startsWith(before.substring(0, before.length() - 1) + ",");
        assertThat(second.usage().inputTokens()).isEqualTo(secondRequest.promptTokens());
    }

    @Test
    void theSameCallSerialisesToTheSameBytesTwice() throws Exception {
        script.then(SimReply.of("one")).then(SimReply.of("two"));
        ModelCall call = call(new Entry.User("Ünïcödé \"quotes\" \\ and\ttabs  "), new Entry.Assistant("<shell>skill list</shell>"),
                new Entry.Tool("$ skill list\n(none)\n"));
        ModelCall equal = new ModelCall(new String(SYSTEM), List.of(new Entry.User(new String("Ünïcödé \"quotes\" \\ and\ttabs  ")),
                new Entry.Assistant(new String("<shell>skill list</shell>")), new Entry.Tool(new String("$ skill list\n(none)\n"))),
                new String(CACHE_KEY));
        ModelProvider provider = provider();

        provider.stream(call, listener, cancellation);
        provider.stream(equal, new RecordingListener(), cancellation);

        assertThat(sim.requests().get(1).body()).isEqualTo(sim.requests().get(0).body());
    }

    // ================================================================ helpers

    protected ModelProvider provider() {
        return provider(sim, TIMEOUTS, FAST_RETRY);
    }

    /** The text chunks without the empty ones (OpenAI's role chunk carries {@code ""}). */
    protected static List<String> nonEmpty(List<String> chunks) {
        return chunks.stream().filter(c -> !c.isEmpty()).toList();
    }
}
