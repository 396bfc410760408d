package dev.skillforge.server.provider.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.agent.ModelReply;
import dev.skillforge.core.agent.ProviderException;
import dev.skillforge.core.transcript.Entry;
import dev.skillforge.core.transcript.ProviderReplay;
import dev.skillforge.testkit.ManualClock;
import dev.skillforge.server.json.Json;
import dev.skillforge.testkit.RecordingListener;
import dev.skillforge.server.provider.SimProviderTestBase;
import dev.skillforge.server.provider.sim.SimProviderServer;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.server.provider.sim.SimRequest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * What only the Anthropic client does, over loopback HTTP against the simulation's Anthropic format: the endpoint
 * and its headers, the prompt cache as Anthropic documents it (writes apart from reads, the minimum, the 20-block
 * look-back, the TTL on the simulation's clock, renewed by each hit), and signed thinking that must come back as
 * it went. What every client does is {@link AnthropicConformanceTest}.
 */
class AnthropicProviderTest extends SimProviderTestBase {

    /** A system prompt of some 2,400 tokens: above the usual 1,024-token minimum, below Haiku 4.5's 4,096. */
    private static final String LONG_SYSTEM = "You forge skills. " + "Skills are folders with a SKILL.md file. ".repeat(300);

    private final ManualClock clock = new ManualClock(1_700_000_000_000L);

    @Test
    void requestGoesToV1MessagesWithTheKeyInXApiKeyAndTheApiVersion() throws Exception {
        script.then(SimReply.of("ok"));

        provider(SimProviderServer.MODEL, AnthropicRequest.Options.DEFAULT).stream(call(new Entry.User("hi")), listener, cancellation);

        SimRequest request = sim.requests().getFirst();
        assertThat(request.path()).isEqualTo("/v1/messages");
        assertThat(request.headers()).containsEntry("x-api-key", "secret-test-key").containsEntry("anthropic-version", "2023-06-01")
                .containsEntry("content-type", "application/json").doesNotContainKey("authorization");
        assertThat(request.body()).doesNotContain("secret-test-key").contains("\"max_tokens\":32000").contains("\"stream\":true");
    }

    @Test
    void settingsNeverPrintTheKey() {
        assertThat(new AnthropicProvider.Settings("http://x/", "secret-test-key", "m", TIMEOUTS, FAST_RETRY, AnthropicRequest.Options.DEFAULT)
                .toString()).doesNotContain("secret-test-key").contains("apiKey=(set)").contains("baseUrl=http://x,");
    }

    @Test
    void aCallWritesItsPromptAndTheNextReadsAllOfItBackAndWritesOnlyWhatItAdds() throws Exception {
        script.then(SimReply.of("First.")).then(SimReply.of("Second."));
        AnthropicProvider provider = provider(SimProviderServer.MODEL, AnthropicRequest.Options.DEFAULT);

        ModelReply first = provider.stream(longCall(new Entry.User("One?")), listener, cancellation);
        ModelReply second = provider.stream(longCall(new Entry.User("One?"), new Entry.Assistant("First.", first.replay()),
                new Entry.User("Two?")), new RecordingListener(), cancellation);

        long firstPrompt = sim.requests().get(0).promptTokens();
        long secondPrompt = sim.requests().get(1).promptTokens();
        assertThat(firstPrompt).isGreaterThan(2000);
        // the whole prompt is written (the breakpoint is on its last block), nothing is read yet
        assertThat(first.usage().cacheReadTokens()).isZero();
        assertThat(first.usage().cacheWriteTokens()).isEqualTo(firstPrompt);
        assertThat(first.usage().inputTokens()).isEqualTo(firstPrompt);
        // the next call reads all of the first and writes only what it adds
        assertThat(second.usage().cacheReadTokens()).isEqualTo(firstPrompt);
        assertThat(second.usage().cacheWriteTokens()).isEqualTo(secondPrompt - firstPrompt);
        assertThat(second.usage().inputTokens()).isEqualTo(secondPrompt);
    }

    @Test
    void aPromptShorterThanTheModelsMinimumIsNeitherWrittenNorRead() throws Exception {
        script.then(SimReply.of("a")).then(SimReply.of("b"));
        AnthropicProvider haiku = provider("claude-haiku-4-5", AnthropicRequest.Options.DEFAULT);

        ModelReply first = haiku.stream(longCall(new Entry.User("One?")), listener, cancellation);
        ModelReply again = haiku.stream(longCall(new Entry.User("One?")), listener, cancellation);

        assertThat(sim.requests().getFirst().promptTokens()).isBetween(1024L, 4095L);
        assertThat(first.usage().cacheWriteTokens()).isZero();
        assertThat(again.usage().cacheReadTokens()).isZero();
        assertThat(again.usage().cacheWriteTokens()).isZero();
    }

    @Test
    void aCacheEntryExpiresFiveMinutesAfterItsLastUseOnTheSimulationsClock() throws Exception {
        restartSim(script, SimProviderServer.Options.DEFAULT.withClock(clock));
        script.then(SimReply.of("a")).then(SimReply.of("b")).then(SimReply.of("c")).then(SimReply.of("d"));
        AnthropicProvider provider = provider(SimProviderServer.MODEL, AnthropicRequest.Options.DEFAULT);
        ModelCall same = longCall(new Entry.User("One?"));

        long written = provider.stream(same, listener, cancellation).usage().cacheWriteTokens();
        clock.advance(Duration.ofMinutes(4));
        long readAfterFour = provider.stream(same, listener, cancellation).usage().cacheReadTokens();
        clock.advance(Duration.ofMinutes(4)); // 8 minutes after the write, 4 after the hit that renewed it
        long readAfterEight = provider.stream(same, listener, cancellation).usage().cacheReadTokens();
        clock.advance(Duration.ofMinutes(5).plusSeconds(1));
        ModelReply expired = provider.stream(same, listener, cancellation);

        assertThat(written).isPositive();
        assertThat(readAfterFour).isEqualTo(written);
        assertThat(readAfterEight).isEqualTo(written);
        assertThat(expired.usage().cacheReadTokens()).isZero();
        assertThat(expired.usage().cacheWriteTokens()).isEqualTo(written);
    }

    @Test
    void anHourLongCacheOutlivesFiveMinutesAndExpiresAfterTheHour() throws Exception {
        restartSim(script, SimProviderServer.Options.DEFAULT.withClock(clock));
        script.then(SimReply.of("a")).then(SimReply.of("b")).then(SimReply.of("c"));
        AnthropicProvider provider = provider(SimProviderServer.MODEL, new AnthropicRequest.Options(1000, null, false, true, false));
        ModelCall same = longCall(new Entry.User("One?"));

        long written = provider.stream(same, listener, cancellation).usage().cacheWriteTokens();
        clock.advance(Duration.ofMinutes(30));
        long readAfterHalfAnHour = provider.stream(same, listener, cancellation).usage().cacheReadTokens();
        clock.advance(Duration.ofMinutes(61));
        long readAfterTheHour = provider.stream(same, listener, cancellation).usage().cacheReadTokens();

        assertThat(sim.requests().getFirst().body()).contains("\"cache_control\":{\"type\":\"ephemeral\",\"ttl\":\"1h\"}");
        assertThat(readAfterHalfAnHour).isEqualTo(written);
        assertThat(readAfterTheHour).isZero();
    }

    @Test
    void theBreakpointLooksBackTwentyBlocksAndExplicitBreakpointsStillReadTheSystemPromptBeyond() throws Exception {
        for (int i = 0; i < 6; i++) {
            script.then(SimReply.of("ok"));
        }
        // each case on a model of its own: the cache is per model, so nothing one case wrote helps another
        AnthropicProvider near = provider("lookback-near", AnthropicRequest.Options.DEFAULT);
        AnthropicProvider far = provider("lookback-far", AnthropicRequest.Options.DEFAULT);
        AnthropicProvider explicit = provider("lookback-explicit", new AnthropicRequest.Options(1000, null, false, false, true));

        long first = near.stream(longCall(new Entry.User("start")), listener, cancellation).usage().cacheWriteTokens();
        // 18 blocks later the breakpoint still sees the first call's; 20 blocks later it does not
        long within = near.stream(longCall(grown(9)), listener, cancellation).usage().cacheReadTokens();
        far.stream(longCall(new Entry.User("start")), listener, cancellation);
        long beyond = far.stream(longCall(grown(10)), listener, cancellation).usage().cacheReadTokens();
        explicit.stream(longCall(new Entry.User("start")), listener, cancellation);
        long explicitBeyond = explicit.stream(longCall(grown(10)), listener, cancellation).usage().cacheReadTokens();

        assertThat(within).isEqualTo(first);
        assertThat(beyond).isZero();
        // the system prompt's own breakpoint holds a shorter entry, found whatever the conversation adds
        assertThat(explicitBeyond).isPositive().isLessThan(first);
    }

    @Test
    void signedThinkingComesBackAsItWentAndIsRefusedAfterAChangedPrefixOrWithoutItsSignature() throws Exception {
        script.then(SimReply.of("Let me look. <shell>skill list</shell>").withReasoning("List ", "them.").withRedactedThinking("ZW5jcnlwdGVk"))
                .then(SimReply.of("None yet."));
        AnthropicProvider provider = provider(SimProviderServer.MODEL, AnthropicRequest.Options.DEFAULT);
        ModelReply first = provider.stream(call(new Entry.User("What skills?")), listener, cancellation);
        ProviderReplay replay = first.replay();
        Entry.Assistant answer = new Entry.Assistant(listener.allText(), replay);

        ProviderException changedPrefix = refused(provider, call(new Entry.User("What skills do I have?"), answer, new Entry.Tool("$ skill list\n-")));
        ProviderException unsigned = refused(provider, call(new Entry.User("What skills?"),
                new Entry.Assistant(listener.allText(), new ProviderReplay(replay.format(), replay.data().replaceAll(",\"signature\":\"[^\"]*\"", ""))),
                new Entry.Tool("$ skill list\n-")));
        ProviderException changedRedacted = refused(provider, call(new Entry.User("What skills?"),
                new Entry.Assistant(listener.allText(), new ProviderReplay(replay.format(), replay.data().replace("ZW5jcnlwdGVk", "Y2hhbmdlZA=="))),
                new Entry.Tool("$ skill list\n-")));
        provider.stream(call(new Entry.User("What skills?"), answer, new Entry.Tool("$ skill list\n-")), new RecordingListener(), cancellation);

        JsonNode blocks = Json.parse(replay.data());
        assertThat(blocks.get(0).get("thinking").asText()).isEqualTo("List them.");
        assertThat(blocks.get(1).get("data").asText()).isEqualTo("ZW5jcnlwdGVk");
        assertThat(changedPrefix.getMessage()).isEqualTo("The provider answered HTTP 400: messages.1.content.0: Invalid `signature` in"
                + " `thinking` block (invalid_request_error)");
        assertThat(unsigned.getMessage()).contains("messages.1.content.0.thinking.signature: Field required");
        assertThat(changedRedacted.getMessage()).contains("messages.1.content.1: Invalid `data` in `redacted_thinking` block");
        // unchanged, the answer's blocks go back byte for byte and are accepted
        assertThat(sim.requests().getLast().body()).contains("{\"role\":\"assistant\",\"content\":" + replay.data() + "}");
        assertThat(script.remaining()).isZero();
    }

    @Test
    void afterAContextCutTheSignedThinkingIsLeftOutSoTheSimulationAcceptsTheRequest() throws Exception {
        script.then(SimReply.of("Saved.").withReasoning("Save it.")).then(SimReply.of("Done."));
        AnthropicProvider provider = provider(SimProviderServer.MODEL, AnthropicRequest.Options.DEFAULT);
        ModelReply first = provider.stream(call(new Entry.User("old"), new Entry.Assistant("old answer"), new Entry.User("Save it")),
                listener, cancellation);

        provider.stream(call(new Entry.ContextCut("[1 earlier message left out]", 2), new Entry.User("Save it"),
                new Entry.Assistant("Saved.", first.replay()), new Entry.User("Next")), new RecordingListener(), cancellation);

        String body = sim.requests().getLast().body();
        assertThat(body).doesNotContain("thinking").contains("{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"Saved.\"}]}");
    }

    // ================================================================ helpers

    private AnthropicProvider provider(String model, AnthropicRequest.Options options) {
        return new AnthropicProvider(new AnthropicProvider.Settings(sim.anthropicBaseUrl(), "secret-test-key", model, TIMEOUTS, FAST_RETRY,
                options));
    }

    private ProviderException refused(AnthropicProvider provider, ModelCall call) {
        int waiting = script.remaining();
        ProviderException e = catchThrowableOfType(ProviderException.class, () -> provider.stream(call, new RecordingListener(), cancellation));
        assertThat(e).isNotNull();
        assertThat(e.code()).isEqualTo("provider_http_error");
        assertThat(script.remaining()).as("a refused request never reaches the model").isEqualTo(waiting);
        return e;
    }

    /** The first call's message, then {@code pairs} answers and questions: two blocks a pair. */
    private static Entry[] grown(int pairs) {
        List<Entry> entries = new ArrayList<>(List.of(new Entry.User("start")));
        for (int i = 0; i < pairs; i++) {
            entries.add(new Entry.Assistant("answer " + i));
            entries.add(new Entry.User("question " + i));
        }
        return entries.toArray(Entry[]::new);
    }

    private static ModelCall longCall(Entry... entries) {
        return new ModelCall(LONG_SYSTEM, List.of(entries), CACHE_KEY);
    }
}
