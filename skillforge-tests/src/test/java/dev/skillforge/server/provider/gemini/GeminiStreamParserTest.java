package dev.skillforge.server.provider.gemini;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.core.agent.ProviderException;
import dev.skillforge.core.agent.Usage;
import dev.skillforge.server.json.Json;
import dev.skillforge.testkit.RecordingListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Hand-written Gemini chunks for what the recordings do not show: finish reasons, errors, thoughts, sources, usage. */
class GeminiStreamParserTest {

    private final RecordingListener listener = new RecordingListener();
    private final GeminiStreamParser parser = new GeminiStreamParser(listener);

    // ================================================================ finish reasons

    @ParameterizedTest
    @CsvSource({
            "SAFETY, provider_finish_safety, Gemini stopped the answer for safety reasons: the text so far is incomplete (finishReason SAFETY)",
            "RECITATION, provider_finish_recitation, Gemini stopped the answer because it was reciting a source verbatim: the text so far is incomplete (finishReason RECITATION)",
            "MAX_TOKENS, provider_finish_max_tokens, Gemini reached its output token limit: the answer is cut off (finishReason MAX_TOKENS)",
            "MALFORMED_FUNCTION_CALL, provider_finish_malformed_function_call, Gemini produced a malformed function call and stopped (finishReason MALFORMED_FUNCTION_CALL)",
            "PROHIBITED_CONTENT, provider_finish_prohibited_content, Gemini stopped the answer: it touched content Google does not allow (finishReason PROHIBITED_CONTENT)",
            "OTHER, provider_finish_other, Gemini stopped the answer early (finishReason OTHER)",
    })
    void finishReasonOtherThanStopFailsAfterTheChunksTextWasDelivered(String reason, String code, String message) throws Exception {
        parser.accept(chunk("{\"text\":\"Half an \"}", null));

        ProviderException e = catchThrowableOfType(ProviderException.class,
                () -> parser.accept(chunk("{\"text\":\"answer\"}", reason)));

        assertThat(e.code()).isEqualTo(code);
        assertThat(e.getMessage()).isEqualTo(message);
        assertThat(listener.text).containsExactly("Half an ", "answer");
    }

    @Test
    void maxTokensIsAFailureNotAShortAnswerEvenWithUsageInTheSameChunk() {
        ProviderException e = catchThrowableOfType(ProviderException.class, () -> parser.accept(
                "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"<shell>skill se\"}],\"role\":\"model\"},\"finishReason\":\"MAX_TOKENS\"}],"
                        + "\"usageMetadata\":{\"promptTokenCount\":10,\"candidatesTokenCount\":65536}}"));

        assertThat(e.code()).isEqualTo("provider_finish_max_tokens");
        assertThat(parser.usage()).isEqualTo(new Usage(10L, 65536L, 0L));
    }

    @Test
    void finishMessageIsAppendedWhenGoogleGivesOne() {
        ProviderException e = catchThrowableOfType(ProviderException.class, () -> parser.accept(
                "{\"candidates\":[{\"finishReason\":\"SAFETY\",\"finishMessage\":\"Blocked: harassment\"}]}"));

        assertThat(e.getMessage()).endsWith("(finishReason SAFETY): Blocked: harassment");
    }

    @Test
    void bodyEndingWithoutAFinishReasonIsTruncated() throws Exception {
        parser.accept(chunk("{\"text\":\"Half\"}", null));

        ProviderException e = catchThrowableOfType(ProviderException.class, parser::finish);

        assertThat(e.code()).isEqualTo("provider_stream_truncated");
        assertThat(e.getMessage()).isEqualTo("The provider stream ended without a finishReason: the answer is incomplete");
    }

    @Test
    void emptyBodyIsTruncatedToo() {
        assertThat(catchThrowableOfType(ProviderException.class, parser::finish).code()).isEqualTo("provider_stream_truncated");
    }

    // ================================================================ errors

    @Test
    void errorMidStreamIsAProviderStreamErrorWithGooglesMessageAndStatus() throws Exception {
        parser.accept(chunk("{\"text\":\"Half\"}", null));

        ProviderException e = catchThrowableOfType(ProviderException.class, () -> parser.accept(
                "{\"error\":{\"code\":503,\"message\":\"The model is overloaded. Please try again later.\",\"status\":\"UNAVAILABLE\"}}"));

        assertThat(e.code()).isEqualTo("provider_stream_error");
        assertThat(e.getMessage()).isEqualTo("The provider reported an error mid-stream: The model is overloaded. Please try again later. (UNAVAILABLE)");
        assertThat(listener.text).containsExactly("Half");
    }

    @Test
    void blockedPromptIsProviderPromptBlocked() {
        ProviderException e = catchThrowableOfType(ProviderException.class, () -> parser.accept(
                "{\"promptFeedback\":{\"blockReason\":\"SAFETY\"},\"usageMetadata\":{\"promptTokenCount\":8}}"));

        assertThat(e.code()).isEqualTo("provider_prompt_blocked");
        assertThat(e.getMessage()).isEqualTo("Gemini refused the prompt (blockReason SAFETY)");
    }

    @Test
    void malformedJsonIsAProviderStreamError() {
        ProviderException e = catchThrowableOfType(ProviderException.class, () -> parser.accept("{\"candidates\":[{"));

        assertThat(e.code()).isEqualTo("provider_stream_error");
        assertThat(e.getMessage()).startsWith("The provider sent malformed JSON mid-stream: ");
    }

    @Test
    void errorBodiesAreReadInGooglesShapes() {
        assertThat(GeminiProvider.errorMessage("{\"error\":{\"code\":400,\"message\":\"API key not valid. Please pass a valid API key.\","
                + "\"status\":\"INVALID_ARGUMENT\",\"details\":[]}}"))
                .isEqualTo("API key not valid. Please pass a valid API key. (INVALID_ARGUMENT)");
        assertThat(GeminiProvider.errorMessage("[{\"error\":{\"code\":429,\"message\":\"Resource has been exhausted\",\"status\":\"RESOURCE_EXHAUSTED\"}}]"))
                .isEqualTo("Resource has been exhausted (RESOURCE_EXHAUSTED)");
        assertThat(GeminiProvider.errorMessage("<html>Bad Gateway</html>\n")).isEqualTo("<html>Bad Gateway</html>");
        assertThat(GeminiProvider.errorMessage("")).isEqualTo("(no message)");
    }

    // ================================================================ thoughts, parts, sources

    @Test
    void thoughtPartsAreReasoningAndAreKeptForReplayWithTheirFlagAndSignature() throws Exception {
        parser.accept(chunk("{\"text\":\"**Planning** the list\",\"thought\":true}", null));
        parser.accept(chunk("{\"text\":\"Let me look.\",\"thoughtSignature\":\"c2lnLTE=\"}", null));
        parser.accept(chunk("{\"text\":\"\"}", "STOP"));
        parser.finish();

        assertThat(listener.reasoning).containsExactly("**Planning** the list");
        assertThat(listener.text).containsExactly("Let me look.");
        assertThat(parser.replay().data()).isEqualTo("[{\"text\":\"**Planning** the list\",\"thought\":true},"
                + "{\"text\":\"Let me look.\",\"thoughtSignature\":\"c2lnLTE=\"}]");
    }

    @Test
    void onlyBareEmptyTextPartsAreLeftOutOfTheReplay() throws Exception {
        parser.accept(chunk("{\"text\":\"\"}", null));
        parser.accept(chunk("{\"text\":\"\",\"thoughtSignature\":\"c2ln\"}", null));
        parser.accept(chunk("{\"text\":\"\",\"thought\":true}", "STOP"));

        assertThat(listener.text).isEmpty();
        assertThat(parser.replay().data()).isEqualTo("[{\"text\":\"\",\"thoughtSignature\":\"c2ln\"},{\"text\":\"\",\"thought\":true}]");
    }

    @Test
    void anUnpairedSurrogateInAPartIsMadeStorableAndTheReplayStaysJson() throws Exception {
        parser.accept(chunk("{\"text\":\"bad \\ud800 half\",\"thoughtSignature\":\"s\"}", "STOP"));

        String data = parser.replay().data();
        assertThat(data).isEqualTo("[{\"text\":\"bad \uFFFD half\",\"thoughtSignature\":\"s\"}]");
        assertThat(Json.parse(data).get(0).get("thoughtSignature").asText()).isEqualTo("s");
    }

    @Test
    void streamWithNothingToKeepHasNoReplay() throws Exception {
        parser.accept(chunk("{\"text\":\"\"}", "STOP"));

        assertThat(parser.replay()).isNull();
    }

    @Test
    void groundingChunksAndRetrievedUrlContextPagesAreSourcesEachOnce() throws Exception {
        parser.accept("{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Cold brew steeps 12 hours.\"}],\"role\":\"model\"},"
                + "\"groundingMetadata\":{\"webSearchQueries\":[\"cold brew time\"],\"groundingChunks\":["
                + "{\"web\":{\"uri\":\"https://vertexaisearch.cloud.google.com/grounding-api-redirect/A\",\"title\":\"example.com\"}},"
                + "{\"web\":{\"uri\":\"https://vertexaisearch.cloud.google.com/grounding-api-redirect/B\"}}]},"
                + "\"urlContextMetadata\":{\"urlMetadata\":["
                + "{\"retrievedUrl\":\"https://coffee.example/guide\",\"urlRetrievalStatus\":\"URL_RETRIEVAL_STATUS_SUCCESS\"},"
                + "{\"retrievedUrl\":\"https://down.example/\",\"urlRetrievalStatus\":\"URL_RETRIEVAL_STATUS_ERROR\"}]}}]}");
        // grounding metadata repeated in a later chunk does not repeat the sources
        parser.accept("{\"candidates\":[{\"finishReason\":\"STOP\",\"groundingMetadata\":{\"groundingChunks\":["
                + "{\"web\":{\"uri\":\"https://vertexaisearch.cloud.google.com/grounding-api-redirect/A\",\"title\":\"example.com\"}}]}}]}");

        assertThat(listener.sources).containsExactly(
                "https://vertexaisearch.cloud.google.com/grounding-api-redirect/A example.com",
                "https://vertexaisearch.cloud.google.com/grounding-api-redirect/B https://vertexaisearch.cloud.google.com/grounding-api-redirect/B",
                "https://coffee.example/guide https://coffee.example/guide");
    }

    @Test
    void jsonArrayFramingIsReadElementByElement() throws Exception {
        parser.accept("[" + chunk("{\"text\":\"a\"}", null) + "," + chunk("{\"text\":\"b\"}", "STOP") + "]");
        parser.finish();

        assertThat(listener.text).containsExactly("a", "b");
    }

    // ================================================================ usage

    @Test
    void usageLastReportWinsAndToolUsePromptTokensCountAsInput() throws Exception {
        parser.accept("{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"a\"}]}}],"
                + "\"usageMetadata\":{\"promptTokenCount\":100,\"candidatesTokenCount\":1}}");
        parser.accept("{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"b\"}]},\"finishReason\":\"STOP\"}],"
                + "\"usageMetadata\":{\"promptTokenCount\":120,\"toolUsePromptTokenCount\":30,\"candidatesTokenCount\":5,"
                + "\"thoughtsTokenCount\":7,\"cachedContentTokenCount\":64,\"totalTokenCount\":162}}");

        assertThat(parser.usage()).isEqualTo(new Usage(150L, 12L, 64L));
    }

    @Test
    void noUsageMetadataAtAllLeavesEveryFigureUnknown() throws Exception {
        parser.accept(chunk("{\"text\":\"a\"}", "STOP"));

        assertThat(parser.usage()).isEqualTo(Usage.UNKNOWN);
    }

    @Test
    void absentCachedCountBesideAPromptCountIsZeroAsProto3LeavesZerosOut() throws Exception {
        parser.accept("{\"candidates\":[{\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":12,\"totalTokenCount\":12}}");

        assertThat(parser.usage()).isEqualTo(new Usage(12L, null, 0L));
    }

    private static String chunk(String part, String finishReason) {
        String json = "{\"candidates\":[{\"content\":{\"parts\":[" + part + "],\"role\":\"model\"}"
                + (finishReason == null ? "" : ",\"finishReason\":\"" + finishReason + "\"") + ",\"index\":0}]}";
        JsonNode check;
        try {
            check = Json.parse(json);
        } catch (Exception e) {
            throw new IllegalArgumentException(json, e);
        }
        return Json.write(check);
    }
}
