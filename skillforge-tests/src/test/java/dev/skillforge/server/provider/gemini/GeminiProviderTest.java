package dev.skillforge.server.provider.gemini;

import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.agent.ModelReply;
import dev.skillforge.core.agent.ProviderException;
import dev.skillforge.core.agent.Usage;
import dev.skillforge.core.transcript.Entry;
import dev.skillforge.testkit.RecordingListener;
import dev.skillforge.server.provider.SimProviderTestBase;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.server.provider.sim.SimRequest;
import dev.skillforge.server.provider.sim.TokenCounter;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * What only the Gemini client does, over loopback HTTP against the simulation's Gemini format: the
 * endpoint and the key header, thought signatures that must come back, finish reasons, the implicit
 * cache rule, video parts. What every client does is {@link GeminiConformanceTest}.
 */
class GeminiProviderTest extends SimProviderTestBase {

    @Test
    void requestGoesToStreamGenerateContentWithAltSseAndTheKeyOnlyInTheGoogApiKeyHeader() throws Exception {
        script.then(SimReply.of("ok"));

        provider("skillforge-sim-1").stream(call(new Entry.User("hi")), listener, cancellation);

        SimRequest request = sim.requests().getFirst();
        assertThat(request.path()).isEqualTo("/v1beta/models/skillforge-sim-1:streamGenerateContent?alt=sse");
        assertThat(request.headers()).containsEntry("x-goog-api-key", "secret-test-key")
                .containsEntry("content-type", "application/json").doesNotContainKey("authorization");
        assertThat(request.path()).doesNotContain("secret-test-key");
        assertThat(request.body()).doesNotContain("secret-test-key");
    }

    @Test
    void modelNameWithTheModelsPrefixIsTheSameEndpoint() {
        assertThat(new GeminiProvider(new GeminiProvider.Settings("https://generativelanguage.googleapis.com/", "k",
                "models/gemini-2.5-flash", TIMEOUTS, FAST_RETRY, GeminiRequest.Options.ALL)).settings().model()).isEqualTo("gemini-2.5-flash");
        assertThat(GeminiProvider.endpoint("https://generativelanguage.googleapis.com", "gemini-2.5-flash").toString())
                .isEqualTo("https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    }

    @Test
    void settingsNeverPrintTheKey() {
        assertThat(new GeminiProvider.Settings("http://x", "secret-test-key", "m", TIMEOUTS, FAST_RETRY, GeminiRequest.Options.ALL).toString())
                .doesNotContain("secret-test-key").contains("apiKey=(set)");
    }

    @Test
    void signedAnswerSentBackWithoutItsSignatureIsRefusedAsGemini3RefusesIt() throws Exception {
        script.then(SimReply.of("Checking. <shell>skill list</shell>").withThoughtSignature("c2lnbmVk"))
                .then(SimReply.of("never"));
        GeminiProvider provider = provider("skillforge-sim-1");
        provider.stream(call(new Entry.User("q")), listener, cancellation);

        ProviderException e = catchThrowableOfType(ProviderException.class, () -> provider.stream(call(new Entry.User("q"),
                new Entry.Assistant("Checking. <shell>skill list</shell>"), new Entry.Tool("$ skill list\n-")), listener, cancellation));

        assertThat(e.code()).isEqualTo("provider_http_error");
        assertThat(e.getMessage()).startsWith("The provider answered HTTP 400: Unable to process input: contents[1] is a signed model turn")
                .endsWith("(INVALID_ARGUMENT)");
    }

    @Test
    void safetyFinishAfterSomeTextIsAFailureNotAShortAnswer() {
        script.then(SimReply.of("Here is how ", "to").withFinishReason("SAFETY"));

        ProviderException e = catchThrowableOfType(ProviderException.class,
                () -> provider("skillforge-sim-1").stream(call(new Entry.User("q")), listener, cancellation));

        assertThat(e.code()).isEqualTo("provider_finish_safety");
        assertThat(listener.text).containsExactly("Here is how ", "to");
    }

    @Test
    void flashModelsCacheFrom1024PromptTokensAndProModelsFrom4096() throws Exception {
        String mid = "Skills are folders with a SKILL.md file. ".repeat(300);   // about 2,700 tokens
        String large = mid.repeat(2);                                          // about 5,400 tokens
        for (int i = 0; i < 6; i++) {
            script.then(SimReply.of("ok"));
        }

        List<Long> flash = twice("skillforge-sim-1", mid);
        List<Long> proBelow = twice("skillforge-sim-pro", mid);
        List<Long> proAbove = twice("skillforge-sim-pro", large);

        assertThat(flash.getFirst()).isZero();
        assertThat(flash.getLast()).isGreaterThan(1024);
        assertThat(proBelow).containsOnly(0L);
        assertThat(proAbove.getFirst()).isZero();
        assertThat(proAbove.getLast()).isGreaterThan(4096);
    }

    @Test
    void usageCountsThoughtsAsOutputAndTheCacheAsPartOfTheInput() throws Exception {
        String system = "Skills are folders with a SKILL.md file. ".repeat(200);
        script.then(SimReply.of("a")).then(SimReply.of("Done.").withReasoning("Think ", "twice."));
        GeminiProvider provider = provider("skillforge-sim-1");
        provider.stream(new ModelCall(system, List.of(new Entry.User("q")), "k"), new RecordingListener(), cancellation);

        ModelReply reply = provider.stream(new ModelCall(system, List.of(new Entry.User("q"), new Entry.Assistant("a"),
                new Entry.User("again")), "k"), listener, cancellation);

        SimRequest request = sim.requests().get(1);
        assertThat(listener.reasoning).containsExactly("Think ", "twice.");
        assertThat(reply.usage()).isEqualTo(new Usage(request.promptTokens(),
                (long) TokenCounter.count("Done.") + TokenCounter.count("Think twice."), request.cachedTokens()));
        assertThat(reply.usage().cacheReadTokens()).isPositive().isLessThan(reply.usage().inputTokens());
    }

    @Test
    void youtubeLinkReachesGeminiAsAFileDataPart() throws Exception {
        script.then(SimReply.of("Watching."));

        provider("skillforge-sim-1").stream(call(new Entry.User("Learn from this video: https://youtu.be/dQw4w9WgXcQ")), listener, cancellation);

        assertThat(sim.requests().getFirst().contents().get(0).get("parts").get(0).toString())
                .isEqualTo("{\"file_data\":{\"file_uri\":\"https://www.youtube.com/watch?v=dQw4w9WgXcQ\"}}");
    }

    @Test
    void theSimulationFramesItsEventsWithCrlfAndEndsWithTheBody() throws Exception {
        script.then(SimReply.of("a", "b"));
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create(sim.geminiBaseUrl() + "/v1beta/models/skillforge-sim-1:streamGenerateContent?alt=sse"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"hi\"}]}]}")).build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).startsWith("data: {\"candidates\":[").endsWith("}\r\n\r\n")
                .doesNotContain("[DONE]").contains("\"finishReason\":\"STOP\"");
        assertThat(response.body().split("\r\n\r\n")).hasSize(3);
    }

    @Test
    void theSimulationAnswersOtherMethodsWithAGoogleStyle404() throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create(sim.geminiBaseUrl() + "/v1beta/models/skillforge-sim-1:generateContent"))
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(GeminiProvider.errorMessage(response.body())).endsWith("(NOT_FOUND)");
    }

    private List<Long> twice(String model, String system) throws Exception {
        GeminiProvider provider = provider(model);
        ModelReply first = provider.stream(new ModelCall(system, List.of(new Entry.User("one")), "k"), new RecordingListener(), cancellation);
        ModelReply second = provider.stream(new ModelCall(system, List.of(new Entry.User("one"), new Entry.Assistant("ok", first.replay()),
                new Entry.User("two")), "k"), new RecordingListener(), cancellation);
        return List.of(first.usage().cacheReadTokens(), second.usage().cacheReadTokens());
    }

    private GeminiProvider provider(String model) {
        return new GeminiProvider(new GeminiProvider.Settings(sim.geminiBaseUrl(), "secret-test-key", model, TIMEOUTS, FAST_RETRY,
                GeminiRequest.Options.ALL));
    }
}
