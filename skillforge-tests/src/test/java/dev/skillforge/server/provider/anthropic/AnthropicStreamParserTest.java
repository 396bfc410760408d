package dev.skillforge.server.provider.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.core.agent.ProviderException;
import dev.skillforge.core.agent.Usage;
import dev.skillforge.server.json.Json;
import dev.skillforge.testkit.RecordingListener;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Hand-written streams for what the recordings do not cover: redacted thinking, stop reasons, errors, usage rules. */
class AnthropicStreamParserTest {

    private static final String START = "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\","
            + "\"content\":[],\"usage\":{\"input_tokens\":12,\"cache_creation_input_tokens\":2048,\"cache_read_input_tokens\":4096,\"output_tokens\":1}}}";
    private static final String STOP = "{\"type\":\"message_stop\"}";

    private final RecordingListener listener = new RecordingListener();
    private final AnthropicStreamParser parser = new AnthropicStreamParser(listener);

    @Test
    void redactedThinkingIsKeptWholeBesideTheSignedThinkingAndNothingOfItIsShown() throws Exception {
        feed(START,
                blockStart(0, "{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}"),
                delta(0, "{\"type\":\"thinking_delta\",\"thinking\":\"Plan: list.\"}"),
                delta(0, "{\"type\":\"signature_delta\",\"signature\":\"c2lnLTE=\"}"),
                blockStop(0),
                blockStart(1, "{\"type\":\"redacted_thinking\",\"data\":\"EmwKAhgBEgy3va3pzix/LafPsn4a\"}"),
                blockStop(1),
                blockStart(2, "{\"type\":\"text\",\"text\":\"\"}"),
                delta(2, "{\"type\":\"text_delta\",\"text\":\"<shell>skill list</shell>\"}"),
                blockStop(2),
                end("end_turn", "{\"output_tokens\":42}"), STOP);
        parser.finish();

        assertThat(listener.reasoning).containsExactly("Plan: list.");
        assertThat(listener.text).containsExactly("<shell>skill list</shell>");
        assertThat(parser.replay().data()).isEqualTo("[{\"type\":\"thinking\",\"thinking\":\"Plan: list.\",\"signature\":\"c2lnLTE=\"},"
                + "{\"type\":\"redacted_thinking\",\"data\":\"EmwKAhgBEgy3va3pzix/LafPsn4a\"},"
                + "{\"type\":\"text\",\"text\":\"<shell>skill list</shell>\"}]");
        // input 12 after the breakpoint + 4096 read + 2048 written; the last output figure wins
        assertThat(parser.usage()).isEqualTo(new Usage(12L + 4096 + 2048, 42L, 4096L, 2048L));
    }

    @Test
    void manyDeltasGrowTheirFieldsWholeInTheOrderTheFirstDeltaGaveThemAndABlockNeverStoppedIsKeptToo() throws Exception {
        feed(START, blockStart(0, "{\"type\":\"thinking\"}")); // started without its fields: the deltas place them
        StringBuilder thinking = new StringBuilder();
        for (int i = 0; i < 5_000; i++) {
            feed(delta(0, "{\"type\":\"thinking_delta\",\"thinking\":\"t" + i + " \"}"));
            thinking.append('t').append(i).append(' ');
            if (i == 2) {
                feed(delta(0, "{\"type\":\"signature_delta\",\"signature\":\"c2ln\"}"));
            }
        }
        feed(delta(0, "{\"type\":\"signature_delta\",\"signature\":\"LTE=\"}"), blockStop(0),
                blockStart(1, "{\"type\":\"text\",\"text\":\"\"}"), delta(1, "{\"type\":\"text_delta\",\"text\":\"Hello, \"}"),
                delta(1, "{\"type\":\"text_delta\",\"text\":\"world\"}")); // block 1 never stops: the body was cut

        assertThat(parser.replay().data()).isEqualTo("[{\"type\":\"thinking\",\"thinking\":\"" + thinking
                + "\",\"signature\":\"c2lnLTE=\"},{\"type\":\"text\",\"text\":\"Hello, world\"}]");
        assertThat(String.join("", listener.reasoning)).isEqualTo(thinking.toString());
    }

    @Test
    void anOverloadedErrorAfterPartialTextIsAFailureNotAShortAnswer() throws Exception {
        feed(START, blockStart(0, "{\"type\":\"text\",\"text\":\"\"}"), delta(0, "{\"type\":\"text_delta\",\"text\":\"<shell>skill set x\\n\"}"));

        ProviderException e = failure("{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}");

        assertThat(e.code()).isEqualTo("provider_stream_error");
        assertThat(e.getMessage()).isEqualTo("The provider reported an error mid-stream: Overloaded (overloaded_error)");
        assertThat(listener.text).containsExactly("<shell>skill set x\n");
    }

    @Test
    void maxTokensAndRefusalStopsFailTheCallAfterTheTextBeforeThem() throws Exception {
        feed(START, blockStart(0, "{\"type\":\"text\",\"text\":\"\"}"), delta(0, "{\"type\":\"text_delta\",\"text\":\"<shell>skill se\"}"), blockStop(0));

        ProviderException cut = failure(end("max_tokens", "{\"output_tokens\":32000}"));
        ProviderException refused = catchThrowableOfType(ProviderException.class,
                () -> new AnthropicStreamParser(new RecordingListener()).accept(end("refusal", null)));

        assertThat(cut.code()).isEqualTo("provider_finish_max_tokens");
        assertThat(cut.getMessage()).contains("output token limit").contains("cut off");
        assertThat(refused.code()).isEqualTo("provider_finish_refusal");
        assertThat(listener.text).containsExactly("<shell>skill se");
    }

    @Test
    void aBodyThatEndsBeforeMessageStopIsTruncatedEvenAfterTheStopReason() throws Exception {
        feed(START, blockStart(0, "{\"type\":\"text\",\"text\":\"\"}"), delta(0, "{\"type\":\"text_delta\",\"text\":\"Hi\"}"), blockStop(0),
                end("end_turn", "{\"output_tokens\":2}"));

        ProviderException e = catchThrowableOfType(ProviderException.class, parser::finish);

        assertThat(e.code()).isEqualTo("provider_stream_truncated");
    }

    @Test
    void pingsUnknownEventsAndUnknownDeltasAreIgnoredAndAnEmptyTextBlockIsNotKept() throws Exception {
        feed(START, "{\"type\":\"ping\"}", "{\"type\":\"something_new\",\"x\":1}",
                blockStart(0, "{\"type\":\"text\",\"text\":\"\"}"), delta(0, "{\"type\":\"future_delta\",\"y\":2}"), blockStop(0),
                blockStart(1, "{\"type\":\"text\",\"text\":\"\",\"citations\":[]}"),
                delta(1, "{\"type\":\"text_delta\",\"text\":\"See the guide.\"}"),
                delta(1, "{\"type\":\"citations_delta\",\"citation\":{\"type\":\"web_search_result_location\",\"url\":\"https://a.example\"}}"),
                blockStop(1), end("end_turn", null), STOP);
        parser.finish();

        JsonNode blocks = Json.parse(parser.replay().data());
        assertThat(blocks).hasSize(1);
        assertThat(blocks.get(0).get("text").asText()).isEqualTo("See the guide.");
        assertThat(blocks.get(0).at("/citations/0/url").asText()).isEqualTo("https://a.example");
    }

    @Test
    void usageWithoutCacheFiguresLeavesThemUnknownAndAStreamWithoutUsageIsAllUnknown() throws Exception {
        feed("{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":30,\"output_tokens\":1}}}");
        AnthropicStreamParser bare = new AnthropicStreamParser(new RecordingListener());
        bare.accept(end("end_turn", null));

        assertThat(parser.usage()).isEqualTo(new Usage(30L, 1L, null, null));
        assertThat(bare.usage()).isEqualTo(Usage.UNKNOWN);
        assertThat(bare.replay()).isNull();
    }

    @Test
    void malformedDataAndADeltaForABlockNeverStartedFailClearly() {
        ProviderException malformed = catchThrowableOfType(ProviderException.class, () -> parser.accept("{not json"));
        ProviderException orphan = catchThrowableOfType(ProviderException.class,
                () -> parser.accept(delta(3, "{\"type\":\"text_delta\",\"text\":\"x\"}")));

        assertThat(malformed.code()).isEqualTo("provider_stream_error");
        assertThat(malformed.getMessage()).startsWith("The provider sent malformed JSON mid-stream");
        assertThat(orphan.code()).isEqualTo("provider_stream_error");
        assertThat(orphan.getMessage()).contains("content block 3");
    }

    @Test
    void anUnpairedSurrogateInTheStoredBlocksBecomesAReplacementCharacter() throws Exception {
        feed(START, blockStart(0, "{\"type\":\"text\",\"text\":\"\"}"), delta(0, "{\"type\":\"text_delta\",\"text\":\"a\\ud83d\"}"), blockStop(0),
                end("end_turn", null), STOP);

        assertThat(parser.replay().data()).isEqualTo("[{\"type\":\"text\",\"text\":\"a\uFFFD\"}]");
    }

    @Test
    void httpErrorBodiesGiveAnthropicsMessageAndType() {
        assertThat(AnthropicProvider.errorMessage("{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\","
                + "\"message\":\"prompt is too long: 210000 tokens > 200000 maximum\"},\"request_id\":\"req_1\"}"))
                .isEqualTo("prompt is too long: 210000 tokens > 200000 maximum (invalid_request_error)");
        assertThat(AnthropicProvider.errorMessage("upstream connect error")).isEqualTo("upstream connect error");
    }

    // ================================================================ helpers

    private void feed(String... events) throws ProviderException {
        for (String event : List.of(events)) {
            parser.accept(event);
        }
    }

    private ProviderException failure(String event) {
        ProviderException e = catchThrowableOfType(ProviderException.class, () -> parser.accept(event));
        assertThat(e).as("a ProviderException").isNotNull();
        return e;
    }

    private static String blockStart(int index, String block) {
        return "{\"type\":\"content_block_start\",\"index\":" + index + ",\"content_block\":" + block + "}";
    }

    private static String delta(int index, String delta) {
        return "{\"type\":\"content_block_delta\",\"index\":" + index + ",\"delta\":" + delta + "}";
    }

    private static String blockStop(int index) {
        return "{\"type\":\"content_block_stop\",\"index\":" + index + "}";
    }

    private static String end(String stopReason, String usage) {
        return "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"" + stopReason + "\",\"stop_sequence\":null}"
                + (usage == null ? "" : ",\"usage\":" + usage) + "}";
    }
}
