package dev.skillforge.server.provider.openai;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.core.agent.ProviderException;
import dev.skillforge.core.agent.Usage;
import dev.skillforge.core.transcript.ProviderReplay;
import dev.skillforge.server.json.Json;
import dev.skillforge.testkit.FixtureFiles;
import dev.skillforge.testkit.RecordingListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The recorded OpenAI-compatible streams of {@code shared/fixtures}, read as the provider reads a
 * body: {@link dev.skillforge.server.provider.SseEventData} over the lines, each event's data into {@link OpenAiStreamParser}.
 * Every expected figure below was read out of the fixture files. Then small hand-written streams
 * for the cases the recordings do not cover.
 */
class OpenAiStreamParserFixtureTest {

    // ================================================================ OpenAI

    @Test
    void openAiGpt4oMiniCacheHitTurn1ReportsCachedTokensFromPromptTokensDetails() {
        Parsed parsed = parseFixture("openai-gpt-4o-mini-cache-hit-streaming.turn1.sse");

        assertThat(parsed.textChunks()).containsExactly("", "cache", " probe", " ready");
        assertThat(parsed.text()).isEqualTo("cache probe ready");
        assertThat(parsed.reasoningChunks()).isEmpty();
        assertThat(parsed.replay()).isNull();
        assertThat(parsed.usage()).isEqualTo(new Usage(4597L, 4L, 4480L));
        assertThat(parsed.finishReason()).isEqualTo("stop");
        assertThat(parsed.sawDone()).isTrue();
        assertThat(parsed.events()).isEqualTo(7);
    }

    @Test
    void openAiGpt4oMiniCacheHitTurn2RepeatsTheSameFigures() {
        Parsed parsed = parseFixture("openai-gpt-4o-mini-cache-hit-streaming.turn2.sse");

        assertThat(parsed.text()).isEqualTo("cache probe ready");
        assertThat(parsed.usage()).isEqualTo(new Usage(4597L, 4L, 4480L));
        assertThat(parsed.sawDone()).isTrue();
    }

    @Test
    void openAiGpt4oMiniCacheHitTurn3WithALongerPromptStillHitsTheSameCachedPrefix() {
        Parsed parsed = parseFixture("openai-gpt-4o-mini-cache-hit-streaming.turn3.sse");

        assertThat(parsed.textChunks()).containsExactly("", "probe", " still", " ready");
        assertThat(parsed.text()).isEqualTo("probe still ready");
        assertThat(parsed.usage()).isEqualTo(new Usage(4624L, 4L, 4480L));
        assertThat(parsed.finishReason()).isEqualTo("stop");
        assertThat(parsed.sawDone()).isTrue();
    }

    @Test
    void openAiGpt41NanoChunksConcatenateToTheWholeAnswerAndZeroCachedIsKnown() {
        Parsed parsed = parseFixture("openai-gpt-4.1-nano-text.chunks.jsonl");

        assertThat(parsed.textChunks()).hasSize(301);
        assertThat(parsed.text()).isEqualTo(NANO_TEXT);
        assertThat(parsed.reasoningChunks()).isEmpty();
        assertThat(parsed.replay()).isNull();
        assertThat(parsed.usage()).isEqualTo(new Usage(16L, 300L, 0L));
        assertThat(parsed.usage().cacheReadTokens()).isNotNull().isZero();
        assertThat(parsed.finishReason()).isEqualTo("stop");
        assertThat(parsed.sawDone()).isTrue();
    }

    // ================================================================ DeepSeek

    @ParameterizedTest
    @ValueSource(strings = {"deepseek-cache-split-streaming.turn1.sse", "deepseek-cache-split-streaming.turn2.sse"})
    void deepSeekCacheSplitReportsTheCacheHitTokens(String fixture) {
        Parsed parsed = parseFixture(fixture);

        assertThat(parsed.textChunks()).containsExactly("", "c", "ached", "");
        assertThat(parsed.text()).isEqualTo("cached");
        assertThat(parsed.usage()).isEqualTo(new Usage(900L, 2L, 896L));
        assertThat(parsed.finishReason()).isEqualTo("stop");
        assertThat(parsed.sawDone()).isTrue();
    }

    @Test
    void deepSeekPromptCacheHitTokensAloneGiveTheCachedFigure() {
        // The recording carries prompt_tokens_details too; without it DeepSeek's own field must be read.
        String sse = mapData(FixtureFiles.read("deepseek-cache-split-streaming.turn1.sse"), chunk -> {
            if (chunk.get("usage") instanceof ObjectNode usage) {
                usage.remove("prompt_tokens_details");
            }
        });
        assertThat(sse).contains("\"prompt_cache_hit_tokens\":896").doesNotContain("prompt_tokens_details");

        Parsed parsed = parseSse(sse);

        assertThat(parsed.usage()).isEqualTo(new Usage(900L, 2L, 896L));
    }

    @Test
    void deepSeekReasonerReasoningContentBecomesReasoningEventsAndReplay() {
        Parsed parsed = parseFixture("deepseek-reasoner-tool-call.chunks.jsonl");

        assertThat(parsed.reasoningChunks()).hasSize(40);
        assertThat(parsed.reasoningChunks().getFirst()).isEmpty();
        assertThat(parsed.reasoningChunks().get(1)).isEqualTo("The");
        assertThat(parsed.reasoning()).isEqualTo(DEEPSEEK_REASONING);
        assertThat(parsed.replay()).isEqualTo(new ProviderReplay(OpenAiChatRequest.REASONING_REPLAY, DEEPSEEK_REASONING));
        assertThat(parsed.textChunks()).containsExactly("");
        assertThat(parsed.text()).isEmpty();
        assertThat(parsed.usage()).isEqualTo(new Usage(339L, 83L, 320L));
        assertThat(parsed.finishReason()).isEqualTo("tool_calls");
        assertThat(parsed.sawDone()).isTrue();
    }

    // ================================================================ Z.AI GLM

    @Test
    void glmTurn1ReasoningThenTextWithUsageAndFinishReasonInTheSameChunk() {
        Parsed parsed = parseFixture("zai-glm-4.7-flash-tool-streaming.turn1.sse");

        assertThat(parsed.reasoningChunks()).hasSize(65);
        assertThat(parsed.reasoning()).isEqualTo(GLM_TURN1_REASONING);
        assertThat(parsed.replay()).isEqualTo(new ProviderReplay(OpenAiChatRequest.REASONING_REPLAY, GLM_TURN1_REASONING));
        assertThat(parsed.textChunks()).hasSize(15);
        assertThat(parsed.text()).isEqualTo("I'll get the current weather information for Florence, Italy for you.");
        assertThat(parsed.usage()).isEqualTo(new Usage(173L, 93L, 172L));
        assertThat(parsed.finishReason()).isEqualTo("tool_calls");
        assertThat(parsed.sawDone()).isTrue();
    }

    @Test
    void glmTurn2ReasoningAndTextAreKeptVerbatimIncludingTrailingSpacesAndNewlines() {
        Parsed parsed = parseFixture("zai-glm-4.7-flash-tool-streaming.turn2.sse");

        assertThat(parsed.reasoningChunks()).hasSize(90);
        assertThat(parsed.reasoning()).isEqualTo(GLM_TURN2_REASONING);
        assertThat(parsed.replay()).isEqualTo(new ProviderReplay(OpenAiChatRequest.REASONING_REPLAY, GLM_TURN2_REASONING));
        assertThat(parsed.textChunks()).hasSize(65);
        assertThat(parsed.text()).isEqualTo(GLM_TURN2_TEXT);
        assertThat(parsed.usage()).isEqualTo(new Usage(272L, 156L, 43L));
        assertThat(parsed.finishReason()).isEqualTo("stop");
        assertThat(parsed.sawDone()).isTrue();
    }

    // ================================================================ xAI

    @Test
    void grokReasoningContentAndCachedTokensOfAnOpenAiCompatibleVendor() {
        Parsed parsed = parseFixture("xai-grok-3-mini-reasoning.chunks.jsonl");

        assertThat(parsed.reasoningChunks()).hasSize(340);
        assertThat(parsed.reasoning()).isEqualTo(GROK_REASONING);
        assertThat(parsed.replay()).isEqualTo(new ProviderReplay(OpenAiChatRequest.REASONING_REPLAY, GROK_REASONING));
        assertThat(parsed.textChunks()).containsExactly("G", "rok");
        assertThat(parsed.text()).isEqualTo("Grok");
        // xAI's completion_tokens (2) leaves out its 340 reasoning tokens (total_tokens 354 = 12 + 2 + 340):
        // output is normalised to include reasoning, as OpenAI counts it.
        assertThat(parsed.usage()).isEqualTo(new Usage(12L, 342L, 11L));
        assertThat(parsed.finishReason()).isEqualTo("stop");
        assertThat(parsed.sawDone()).isTrue();
    }

    // ================================================================ llama.cpp

    @Test
    void llamaCppQwen3Turn1ColdCacheReportsZeroCached() {
        Parsed parsed = parseFixture("llamacpp-qwen3-cache-prompt-streaming.turn1.sse");

        assertThat(parsed.textChunks()).containsExactly("cache", " probe", " ready");
        assertThat(parsed.usage()).isEqualTo(new Usage(2825L, 8L, 0L));
        assertThat(parsed.finishReason()).isEqualTo("stop");
        assertThat(parsed.sawDone()).isTrue();
    }

    @Test
    void llamaCppQwen3Turn2SamePromptReusesAllButOneToken() {
        Parsed parsed = parseFixture("llamacpp-qwen3-cache-prompt-streaming.turn2.sse");

        assertThat(parsed.text()).isEqualTo("cache probe ready");
        assertThat(parsed.usage()).isEqualTo(new Usage(2825L, 8L, 2824L));
        assertThat(parsed.sawDone()).isTrue();
    }

    @Test
    void llamaCppQwen3Turn3ExtendedPromptReusesTheWholePreviousPromptAndStopsOnLength() {
        Parsed parsed = parseFixture("llamacpp-qwen3-cache-prompt-streaming.turn3.sse");

        assertThat(parsed.textChunks()).isEmpty();
        assertThat(parsed.reasoningChunks()).containsExactly(
                "Okay", ",", " the", " user", " wants", " me", " to", " reply", " with", " \"", "probe", " still", " ready", "\"");
        assertThat(parsed.replay()).isEqualTo(new ProviderReplay(OpenAiChatRequest.REASONING_REPLAY,
                "Okay, the user wants me to reply with \"probe still ready\""));
        assertThat(parsed.usage()).isEqualTo(new Usage(2854L, 16L, 2825L));
        assertThat(parsed.finishReason()).isEqualTo("length");
        assertThat(parsed.sawDone()).isTrue();
    }

    @Test
    void llamaCppQwen3PromptTokensDetailsWinOverTimingsCacheN() {
        // Both report 2824 in the recording; make them differ to see which one is read.
        String sse = mapData(FixtureFiles.read("llamacpp-qwen3-cache-prompt-streaming.turn2.sse"), chunk -> {
            if (chunk.get("timings") instanceof ObjectNode timings) {
                timings.put("cache_n", 1);
            }
        });

        assertThat(parseSse(sse).usage()).isEqualTo(new Usage(2825L, 8L, 2824L));
    }

    @Test
    void llamaCppGptOssTurn1TakesTheCachedFigureFromTimingsCacheN() {
        Parsed parsed = parseFixture("llamacpp-gpt-oss-tool-streaming.turn1.sse");

        assertThat(parsed.reasoningChunks()).containsExactly(
                "User", " wants", " weather", " in", " Florence", ",", " Italy", ".", " We", " can", " use", " the",
                " weather", " function", ".");
        assertThat(parsed.replay()).isEqualTo(new ProviderReplay(OpenAiChatRequest.REASONING_REPLAY,
                "User wants weather in Florence, Italy. We can use the weather function."));
        assertThat(parsed.text()).isEmpty();
        // usage has no cached field; timings: cache_n 138, prompt_n 1
        assertThat(parsed.usage()).isEqualTo(new Usage(139L, 41L, 138L));
        assertThat(parsed.finishReason()).isEqualTo("tool_calls");
        assertThat(parsed.sawDone()).isTrue();
    }

    @Test
    void llamaCppGptOssTurn2TakesTheCachedFigureFromTimingsCacheN() {
        Parsed parsed = parseFixture("llamacpp-gpt-oss-tool-streaming.turn2.sse");

        assertThat(parsed.textChunks()).hasSize(14);
        assertThat(parsed.text()).isEqualTo("The current weather in Florence, Italy is **40\u202f°C**.");
        assertThat(parsed.reasoningChunks()).isEmpty();
        assertThat(parsed.replay()).isNull();
        // usage prompt_tokens 196 = timings cache_n 160 + prompt_n 36
        assertThat(parsed.usage()).isEqualTo(new Usage(196L, 18L, 160L));
        assertThat(parsed.finishReason()).isEqualTo("stop");
        assertThat(parsed.sawDone()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"llamacpp-gpt-oss-tool-streaming.turn1.sse", "llamacpp-gpt-oss-tool-streaming.turn2.sse"})
    void llamaCppTimingsWithoutAUsageObjectGivePromptAsCacheNPlusPromptN(String fixture) {
        String sse = mapData(FixtureFiles.read(fixture), chunk -> chunk.remove("usage"));
        assertThat(sse).contains("\"timings\"").doesNotContain("\"usage\"");

        Parsed parsed = parseSse(sse);

        assertThat(parsed.usage()).isEqualTo(fixture.endsWith("turn1.sse")
                ? new Usage(138L + 1L, 41L, 138L)
                : new Usage(160L + 36L, 18L, 160L));
    }

    // ================================================================ framing

    @Test
    void crlfFramedRecordingParsesExactlyLikeTheLfOriginal() {
        String lf = FixtureFiles.read("zai-glm-4.7-flash-tool-streaming.turn2.sse");
        assertThat(lf).doesNotContain("\r");
        String crlf = lf.replace("\n", "\r\n");

        Parsed fromLf = parseSse(lf);
        Parsed fromCrlf = parseSse(crlf);

        assertThat(fromCrlf).isEqualTo(fromLf);
        assertThat(fromCrlf.text()).isEqualTo(GLM_TURN2_TEXT).doesNotContain("\r");
        assertThat(fromCrlf.usage()).isEqualTo(new Usage(272L, 156L, 43L));
    }

    @Test
    void crlfFramingWithContentEndingInCarriageReturnLikeCharactersKeepsTheData() {
        String sse = "data: {\"choices\":[{\"delta\":{\"content\":\"a\\r\\nb\"}}]}\r\n\r\n"
                + "data: [DONE]\r\n\r\n";

        Parsed parsed = parseSse(sse);

        assertThat(parsed.textChunks()).containsExactly("a\r\nb");
        assertThat(parsed.sawDone()).isTrue();
    }

    @Test
    void multiLineDataIsJoinedWithNewlinesIntoOnePayload() {
        String sse = """
                data: {"choices":[{"delta":
                data: {"content":"hi"}}],
                data: "usage":{"prompt_tokens":3,"completion_tokens":1}}

                data: [DONE]

                """;

        Parsed parsed = parseSse(sse);

        assertThat(parsed.events()).isEqualTo(2);
        assertThat(parsed.textChunks()).containsExactly("hi");
        assertThat(parsed.usage()).isEqualTo(new Usage(3L, 1L, null));
        assertThat(parsed.sawDone()).isTrue();
    }

    @Test
    void sseDataIgnoresCommentsAndOtherFieldsAndReadsDataWithoutASpace() throws ProviderException {
        List<String> data = FixtureFiles.sseData("""
                : keep-alive
                event: message
                id: 7
                retry: 1000
                data:{"a":1}


                data:  two spaces keep one
                data:

                data: last without blank line""");

        assertThat(data).containsExactly("{\"a\":1}", " two spaces keep one\n", "last without blank line");
    }

    @Test
    void streamEndingWithoutDoneIsNotSeenAsDone() {
        Parsed parsed = parseSse("data: {\"choices\":[{\"delta\":{\"content\":\"Half\"}}]}\n\n");

        assertThat(parsed.text()).isEqualTo("Half");
        assertThat(parsed.sawDone()).isFalse();
    }

    @Test
    void doneSurroundedByWhitespaceEndsTheStreamAndLaterDataIsNotRead() {
        Parsed parsed = parseSse("""
                data: {"choices":[{"delta":{"content":"one"}}]}

                data:  [DONE]\s

                data: {"choices":[{"delta":{"content":"after"}}]}

                """);

        assertThat(parsed.sawDone()).isTrue();
        assertThat(parsed.textChunks()).containsExactly("one");
    }

    // ================================================================ errors

    @Test
    void errorPayloadIsAProviderStreamErrorWithTheProvidersMessage() {
        OpenAiStreamParser parser = new OpenAiStreamParser(new RecordingListener());

        ProviderException e = catchThrowableOfType(ProviderException.class,
                () -> parser.accept("{\"error\":{\"message\":\"quota\"}}"));

        assertThat(e.code()).isEqualTo("provider_stream_error");
        assertThat(e.getMessage()).isEqualTo("The provider reported an error mid-stream: quota");
    }

    @Test
    void errorPayloadWithATypeNamesTheType() {
        OpenAiStreamParser parser = new OpenAiStreamParser(new RecordingListener());

        assertThatThrownBy(() -> parser.accept("{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"rate_limit_error\"}}"))
                .isInstanceOf(ProviderException.class)
                .hasMessage("The provider reported an error mid-stream: Rate limit reached (rate_limit_error)");
    }

    @Test
    void errorPayloadAsAPlainStringIsTheMessage() {
        OpenAiStreamParser parser = new OpenAiStreamParser(new RecordingListener());

        assertThatThrownBy(() -> parser.accept("{\"error\":\"upstream overloaded\"}"))
                .isInstanceOf(ProviderException.class)
                .hasMessage("The provider reported an error mid-stream: upstream overloaded");
    }

    @Test
    void errorAfterPartialTextFailsAfterTheTextWasDelivered() {
        RecordingListener recording = new RecordingListener();
        String sse = """
                data: {"choices":[{"delta":{"content":"Half an "}}]}

                data: {"choices":[{"delta":{"content":"answer"}}]}

                data: {"error":{"message":"quota"}}

                data: [DONE]

                """;

        ProviderException e = catchThrowableOfType(ProviderException.class, () -> feed(sse, recording));

        assertThat(e.code()).isEqualTo("provider_stream_error");
        assertThat(e.getMessage()).isEqualTo("The provider reported an error mid-stream: quota");
        assertThat(recording.text).containsExactly("Half an ", "answer");
    }

    @Test
    void nullErrorFieldInANormalChunkIsNotAnError() throws ProviderException {
        RecordingListener recording = new RecordingListener();
        OpenAiStreamParser parser = new OpenAiStreamParser(recording);

        assertThat(parser.accept("{\"error\":null,\"choices\":[{\"delta\":{\"content\":\"ok\"}}]}")).isTrue();

        assertThat(recording.text).containsExactly("ok");
    }

    @Test
    void malformedJsonDataIsAProviderStreamError() {
        OpenAiStreamParser parser = new OpenAiStreamParser(new RecordingListener());

        ProviderException e = catchThrowableOfType(ProviderException.class,
                () -> parser.accept("{\"choices\":[{\"delta\":{\"content\":\"cut"));

        assertThat(e.code()).isEqualTo("provider_stream_error");
        assertThat(e.getMessage()).startsWith("The provider sent malformed JSON mid-stream: ");
    }

    @Test
    void nonJsonTextDataIsAProviderStreamError() {
        OpenAiStreamParser parser = new OpenAiStreamParser(new RecordingListener());

        assertThatThrownBy(() -> parser.accept("<html>502 Bad Gateway</html>"))
                .isInstanceOfSatisfying(ProviderException.class,
                        e -> assertThat(e.code()).isEqualTo("provider_stream_error"))
                .hasMessageStartingWith("The provider sent malformed JSON mid-stream: ");
    }

    // ================================================================ usage rules

    @Test
    void absentUsageLeavesEveryFigureUnknownNotZero() {
        Parsed parsed = parseSse("""
                data: {"choices":[{"delta":{"content":"hi"},"finish_reason":null}]}

                data: {"choices":[{"delta":{},"finish_reason":"stop"}],"usage":null}

                data: [DONE]

                """);

        assertThat(parsed.usage()).isEqualTo(Usage.UNKNOWN);
        assertThat(parsed.usage().inputTokens()).isNull();
        assertThat(parsed.usage().outputTokens()).isNull();
        assertThat(parsed.usage().cacheReadTokens()).isNull();
    }

    @Test
    void usageWithoutAnyCacheFieldKeepsCachedUnknown() {
        // Ollama, or vLLM without --enable-prompt-tokens-details
        Parsed parsed = parseSse("""
                data: {"choices":[],"usage":{"prompt_tokens":120,"completion_tokens":9,"total_tokens":129,"prompt_tokens_details":null}}

                data: [DONE]

                """);

        assertThat(parsed.usage()).isEqualTo(new Usage(120L, 9L, null));
    }

    @Test
    void kimiCachedTokensInsideTheStreamingChoiceAreRead() {
        Parsed parsed = parseSse("""
                data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hello"},"finish_reason":null}]}

                data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop","usage":{"prompt_tokens":2048,"completion_tokens":12,"total_tokens":2060,"cached_tokens":1536}}]}

                data: [DONE]

                """);

        assertThat(parsed.text()).isEqualTo("Hello");
        assertThat(parsed.usage()).isEqualTo(new Usage(2048L, 12L, 1536L));
        assertThat(parsed.finishReason()).isEqualTo("stop");
    }

    @Test
    void kimiCachedTokensAtTheTopLevelOfUsageAreRead() throws ProviderException {
        OpenAiStreamParser parser = new OpenAiStreamParser(new RecordingListener());

        parser.accept("{\"choices\":[],\"usage\":{\"prompt_tokens\":500,\"completion_tokens\":7,\"cached_tokens\":256}}");

        assertThat(parser.usage()).isEqualTo(new Usage(500L, 7L, 256L));
    }

    @Test
    void openAiCacheWritesAreReadWhereAResponseReportsThemAndUnknownWhereItDoesNot() throws ProviderException {
        OpenAiStreamParser parser = new OpenAiStreamParser(new RecordingListener());

        parser.accept("{\"choices\":[],\"usage\":{\"prompt_tokens\":3000,\"completion_tokens\":9,"
                + "\"prompt_tokens_details\":{\"cached_tokens\":1024,\"cache_write_tokens\":1900}}}");
        assertThat(parser.usage()).isEqualTo(new Usage(3000L, 9L, 1024L, 1900L));

        parser.accept("{\"choices\":[],\"usage\":{\"prompt_tokens\":3000,\"completion_tokens\":9,\"cache_write_tokens\":1800,"
                + "\"prompt_tokens_details\":{\"cached_tokens\":1024}}}");
        assertThat(parser.usage()).isEqualTo(new Usage(3000L, 9L, 1024L, 1800L));

        parser.accept("{\"choices\":[],\"usage\":{\"prompt_tokens\":3000,\"completion_tokens\":9,\"prompt_tokens_details\":{\"cached_tokens\":0}}}");
        assertThat(parser.usage().cacheWriteTokens()).isNull();
    }

    @Test
    void firstPresentCacheFieldWinsInTheDocumentedOrder() throws ProviderException {
        OpenAiStreamParser parser = new OpenAiStreamParser(new RecordingListener());

        parser.accept("{\"choices\":[],\"usage\":{\"prompt_tokens\":1000,\"completion_tokens\":5,"
                + "\"prompt_tokens_details\":{\"cached_tokens\":640},\"cached_tokens\":512,\"prompt_cache_hit_tokens\":384},"
                + "\"timings\":{\"cache_n\":256,\"prompt_n\":744}}");
        assertThat(parser.usage()).isEqualTo(new Usage(1000L, 5L, 640L));

        parser.accept("{\"choices\":[],\"usage\":{\"prompt_tokens\":1000,\"completion_tokens\":5,"
                + "\"cached_tokens\":512,\"prompt_cache_hit_tokens\":384},\"timings\":{\"cache_n\":256,\"prompt_n\":744}}");
        assertThat(parser.usage()).isEqualTo(new Usage(1000L, 5L, 512L));

        parser.accept("{\"choices\":[],\"usage\":{\"prompt_tokens\":1000,\"completion_tokens\":5,"
                + "\"prompt_cache_hit_tokens\":384},\"timings\":{\"cache_n\":256,\"prompt_n\":744}}");
        assertThat(parser.usage()).isEqualTo(new Usage(1000L, 5L, 384L));

        parser.accept("{\"choices\":[],\"usage\":{\"prompt_tokens\":1000,\"completion_tokens\":5},"
                + "\"timings\":{\"cache_n\":256,\"prompt_n\":744}}");
        assertThat(parser.usage()).isEqualTo(new Usage(1000L, 5L, 256L));
    }

    @Test
    void theLastUsageReportWinsAndAChunkWithoutUsageKeepsIt() throws ProviderException {
        OpenAiStreamParser parser = new OpenAiStreamParser(new RecordingListener());

        parser.accept("{\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":1}}");
        parser.accept("{\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":4,\"prompt_tokens_details\":{\"cached_tokens\":0}}}");
        parser.accept("{\"choices\":[{\"delta\":{}}],\"usage\":null}");

        assertThat(parser.usage()).isEqualTo(new Usage(10L, 4L, 0L));
    }

    @Test
    void reasoningFieldNamedReasoningIsAlsoReadAndReplayed() {
        Parsed parsed = parseSse("""
                data: {"choices":[{"delta":{"reasoning":"Think "}}]}

                data: {"choices":[{"delta":{"reasoning":"twice."}}]}

                data: {"choices":[{"delta":{"content":"Done."}}]}

                data: [DONE]

                """);

        assertThat(parsed.reasoningChunks()).containsExactly("Think ", "twice.");
        assertThat(parsed.replay()).isEqualTo(new ProviderReplay(OpenAiChatRequest.REASONING_REPLAY, "Think twice."));
        assertThat(parsed.text()).isEqualTo("Done.");
    }

    // ================================================================ helpers

    /** What one stream gave: listener calls in order and the parser's results. */
    record Parsed(List<String> textChunks, List<String> reasoningChunks, Usage usage, boolean sawDone,
                  ProviderReplay replay, String finishReason, int events) {
        String text() {
            return String.join("", textChunks);
        }

        String reasoning() {
            return String.join("", reasoningChunks);
        }
    }

    /** A {@code .sse} fixture through the SSE reader; a {@code .chunks.jsonl} one line by line, then {@code [DONE]}. */
    static Parsed parseFixture(String name) {
        String content = FixtureFiles.read(name);
        if (!name.endsWith(".chunks.jsonl")) {
            return parseSse(content);
        }
        RecordingListener recording = new RecordingListener();
        OpenAiStreamParser parser = new OpenAiStreamParser(recording);
        int events = 0;
        try {
            for (String line : content.split("\n")) {
                if (line.isBlank()) {
                    continue;
                }
                events++;
                assertThat(parser.accept(line)).as("a data line before [DONE]").isTrue();
            }
            events++;
            assertThat(parser.accept("[DONE]")).isFalse();
        } catch (ProviderException e) {
            throw new AssertionError("fixture " + name + " failed: " + e.code() + " " + e.getMessage(), e);
        }
        assertThat(recording.sources).isEmpty();
        return new Parsed(recording.text, recording.reasoning, parser.usage(), parser.sawDone(), parser.replay(),
                parser.finishReason(), events);
    }

    static Parsed parseSse(String sse) {
        RecordingListener recording = new RecordingListener();
        try {
            return feed(sse, recording);
        } catch (ProviderException e) {
            throw new AssertionError("stream failed: " + e.code() + " " + e.getMessage(), e);
        }
    }

    /** Reads {@code sse} as the provider reads a body: events until the parser says [DONE] or the body ends. */
    static Parsed feed(String sse, RecordingListener recording) throws ProviderException {
        OpenAiStreamParser parser = new OpenAiStreamParser(recording);
        int events = 0;
        for (String data : FixtureFiles.sseData(sse)) {
            events++;
            if (!parser.accept(data)) {
                break;
            }
        }
        return new Parsed(recording.text, recording.reasoning, parser.usage(), parser.sawDone(), parser.replay(),
                parser.finishReason(), events);
    }

    /** Rewrites every JSON {@code data:} payload of an LF-framed recording. */
    static String mapData(String sse, Consumer<ObjectNode> change) {
        StringBuilder out = new StringBuilder();
        for (String line : sse.split("\n", -1)) {
            if (line.startsWith("data: {")) {
                try {
                    ObjectNode chunk = (ObjectNode) Json.parse(line.substring("data: ".length()));
                    change.accept(chunk);
                    line = "data: " + Json.write(chunk);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            out.append(line).append('\n');
        }
        return out.substring(0, out.length() - 1);
    }

    // ================================================================ expected text, read from the fixtures

    private static final String NANO_TEXT = "**Holiday Name:** Harmony Day\n"
            + "\n"
            + "**Date:** Celebrated annually on the first Saturday of May\n"
            + "\n"
            + "**Purpose:** Harmony Day is dedicated to fostering understanding, kindness, and unity among diverse communities. It emphasizes celebrating cultural differences while promoting empathy and collaboration.\n"
            + "\n"
            + "**Traditions:**\n"
            + "\n"
            + "1. **Cultural Potluck Gatherings:** Communities come together to share traditional dishes from their backgrounds, encouraging conversation and curiosity about different cultures.\n"
            + "\n"
            + "2. **Story Circles:** People of all ages are encouraged to share stories from their heritage or personal experiences that promote understanding and empathy.\n"
            + "\n"
            + "3. **Decorate for Unity:** Public spaces and homes are decorated with symbols representing different cultures—flags, traditional art, and meaningful motifs—to visually celebrate diversity.\n"
            + "\n"
            + "4. **Collaborative Art Projects:** Communities create murals or sculptures that symbolize unity and diversity, involving artists and residents of all ages.\n"
            + "\n"
            + "5. **Acts of Kindness:** As a central activity, participants perform Small acts of kindness throughout the day, such as volunteering, helping neighbors, or inviting someone new to join festivities.\n"
            + "\n"
            + "6. **Music & Dance Festivals:** Local performances showcase a variety of musical styles and dances from different parts of the world, emphasizing shared joy and creativity.\n"
            + "\n"
            + "7. **Educational Workshops:** Interactive sessions teach about various cultures’ histories, traditions, and celebrations, fostering respect and knowledge.\n"
            + "\n"
            + "**Overall Spirit:** Harmony Day aims to create a sense of global community, reminding everyone that despite our differences, we are all connected through shared human experiences and mutual respect.";

    private static final String DEEPSEEK_REASONING = "The user is asking for the weather in San Francisco. I need to use the weather tool to get this information. Let me invoke the weather tool with the location parameter set to \"San Francisco\".";

    private static final String GLM_TURN1_REASONING = "The user is asking for the weather in Florence, Italy. I have access to a weather function that can get weather information for a location. The function requires a \"location\" parameter, which should be a city. The user has specified \"Florence,Italy\" as the location, so I should use that exact value.";

    private static final String GLM_TURN2_REASONING = "The weather function returned \"40 C\" which seems like it could be the temperature in Celsius. However, this seems quite high for what would typically be considered normal weather in Florence, Italy. The response is quite brief and doesn't provide additional details like conditions, humidity, wind, etc. \n"
            + "\n"
            + "I should report what the function returned but also note that this seems like a potentially unusually high temperature, or perhaps there's an issue with the weather data.";

    private static final String GLM_TURN2_TEXT = "The current temperature in Florence, Italy is 40°C (104°F). That's quite warm! Please note that this seems unusually high for a typical day in Florence - it might be peak summer heat or there could be some data variation. Make sure to stay hydrated and stay cool if you're planning to be outdoors.";

    private static final String GROK_REASONING = "First, the user said: \"Say a single word.\" That's straightforward. They want me to respond with just one word.\n"
            + "\n"
            + "As Grok, I'm supposed to be helpful, truthful, and not verbose. So, I should keep my response simple and directly answer the request.\n"
            + "\n"
            + "The instruction is to say a single word, so my response should be exactly that: one word. I shouldn't add any explanations, greetings, or extra text.\n"
            + "\n"
            + "What word should I choose? The user didn't specify which word, so I have the freedom to pick any. To make it fun and aligned with my personality, I could choose something relevant or witty.\n"
            + "\n"
            + "I'm Grok, created by xAI, and I'm meant to be maximally truthful and helpful. Maybe I could choose a word that reflects that, like \"Hello\" or \"Grok\", but I need to keep it simple.\n"
            + "\n"
            + "Possible words:\n"
            + "\n"
            + "- \"Hello\" – Common greeting.\n"
            + "\n"
            + "- \"Yes\" – Affirmative.\n"
            + "\n"
            + "- \"Grok\" – My name, which might be meta.\n"
            + "\n"
            + "- \"Word\" – Echoing the request.\n"
            + "\n"
            + "- Something random like \"Banana\" for humor.\n"
            + "\n"
            + "Since the user asked for a single word, and I'm an AI, I should ensure it's appropriate and not misleading.\n"
            + "\n"
            + "The system prompt says: \"You are Grok, a helpful and maximally truthful AI built by xAI, not based on any other companies and their models.\" So, I should stay true to that.\n"
            + "\n"
            + "To be helpful, I'll just pick a simple word. Let's go with \"Grok\" to make it personal.\n"
            + "\n"
            + "Finally, my response should be only that one word, nothing else. No punctuation if possible, just the word.\n"
            + "\n"
            + "Response: Grok";

    /** The model that answered (the dated model every chunk names): a trace's {@code gen_ai.response.model}. */
    @Test
    void theAnsweringModelIsRead() throws Exception {
        OpenAiStreamParser parser = new OpenAiStreamParser(new RecordingListener());
        for (String data : FixtureFiles.sseData(FixtureFiles.read("openai-gpt-4o-mini-cache-hit-streaming.turn1.sse"))) {
            parser.accept(data);
        }
        assertThat(parser.model()).isEqualTo("gpt-4o-mini-2024-07-18");
    }
}
