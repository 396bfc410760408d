package dev.skillforge.server.provider.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.skillforge.core.agent.ProviderException;
import dev.skillforge.core.agent.Usage;
import dev.skillforge.core.transcript.ProviderReplay;
import dev.skillforge.server.json.Json;
import dev.skillforge.testkit.FixtureFiles;
import dev.skillforge.testkit.RecordingListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The recorded Anthropic streams of {@code shared/fixtures}, read as {@link AnthropicProvider} reads a body:
 * {@link dev.skillforge.server.provider.SseEventData} over the lines ({@code event:} lines are framing; each payload names its event in
 * {@code type}), each event's data into {@link AnthropicStreamParser}, then the end of the body. Every expected
 * figure was read out of the fixture files.
 */
class AnthropicStreamParserFixtureTest {

    // ================================================================ anthropic-cache-read-streaming (claude-sonnet-4-6)

    @ParameterizedTest
    @ValueSource(strings = {"anthropic-cache-read-streaming.turn1.sse", "anthropic-cache-read-streaming.turn2.sse"})
    void cacheReadInMessageStartIsTheCachedPartOfTheInputAndNothingWasWritten(String fixture) {
        String sse = FixtureFiles.read(fixture);
        assertThat(sse).contains("event: message_start").contains("\"cache_read_input_tokens\":5343").doesNotContain("[DONE]");

        Parsed parsed = parse(sse);

        assertThat(parsed.failure()).isNull();
        assertThat(parsed.listener().text).containsExactly("cache", " probe ready");
        assertThat(parsed.listener().reasoning).isEmpty();
        // input_tokens 3 after the breakpoint + 5343 read + 0 written; output_tokens 6 in message_delta (1 in message_start)
        assertThat(parsed.usage()).isEqualTo(new Usage(5346L, 6L, 5343L, 0L));
        assertThat(parsed.stopReason()).isEqualTo("end_turn");
        assertThat(parsed.replay()).isEqualTo(new ProviderReplay(AnthropicRequest.CONTENT_REPLAY,
                "[{\"text\":\"cache probe ready\",\"type\":\"text\"}]")); // the recorder sorted keys: kept as they came
    }

    @Test
    void cacheReadTurn3WithALongerPromptReadsMoreFromTheCache() {
        Parsed parsed = parse(FixtureFiles.read("anthropic-cache-read-streaming.turn3.sse"));

        assertThat(parsed.listener().allText()).isEqualTo("probe still ready");
        assertThat(parsed.usage()).isEqualTo(new Usage(5371L, 6L, 5368L, 0L));
    }

    // ================================================================ anthropic-thinking-signature-tool-streaming (claude-sonnet-4)

    @Test
    void thinkingStreamsAsReasoningAndTheSignedBlockIsKeptWholeAsStreamed() throws Exception {
        String sse = FixtureFiles.read("anthropic-thinking-signature-tool-streaming.turn1.sse");
        assertThat(sse).contains("\"type\":\"signature_delta\"");

        Parsed parsed = parse(sse);

        // 22 thinking_deltas, one of them empty: no empty reasoning event
        assertThat(parsed.listener().reasoning).hasSize(21).startsWith("The user is asking for", " weather information for Florence, Italy. I");
        String thinking = parsed.listener().allReasoning();
        assertThat(thinking).isEqualTo("The user is asking for weather information for Florence, Italy. I have access to a weather function"
                + " that takes a location parameter. The user has provided the location as \"Florence, Italy\" which is specific enough"
                + " for the weather function. I have all the required parameters to make the function call.");
        assertThat(parsed.listener().text).isEmpty();
        ArrayNode blocks = (ArrayNode) Json.parse(parsed.replay().data());
        assertThat(blocks).hasSize(2);
        JsonNode block = blocks.get(0);
        assertThat(block.get("type").asText()).isEqualTo("thinking");
        assertThat(block.get("thinking").asText()).isEqualTo(thinking);
        assertThat(block.get("signature").asText()).startsWith("EtYDCkYICxgCKkAVHEWRYo6R").endsWith("VeDhPFVAYAQ==").hasSize(636);
        // keys in the order the block started: type, thinking, signature
        assertThat(parsed.replay().data()).startsWith("[{\"type\":\"thinking\",\"thinking\":\"The user is asking");
        // the tool call's input JSON, streamed in pieces, is kept as one object
        assertThat(blocks.get(1).get("input")).isEqualTo(Json.parse("{\"location\":\"Florence, Italy\"}"));
        // message_delta: input 424 + 0 read + 0 written; output 119 (thinking included)
        assertThat(parsed.usage()).isEqualTo(new Usage(424L, 119L, 0L, 0L));
    }

    @Test
    void aToolUseStopIsAFailureSinceSkillForgeOffersNoToolsToAnswerItWith() {
        Parsed parsed = parse(FixtureFiles.read("anthropic-thinking-signature-tool-streaming.turn1.sse"));

        assertThat(parsed.failure()).isNotNull();
        assertThat(parsed.failure().code()).isEqualTo("provider_finish_tool_use");
        assertThat(parsed.failure().getMessage()).contains("offers it none").contains("stop_reason tool_use");
        assertThat(parsed.stopReason()).isEqualTo("tool_use");
    }

    @Test
    void thinkingTurn2AnswerAfterTheToolResultIsItsText() {
        Parsed parsed = parse(FixtureFiles.read("anthropic-thinking-signature-tool-streaming.turn2.sse"));

        assertThat(parsed.failure()).isNull();
        assertThat(parsed.listener().allText()).isEqualTo("The current weather in Florence, Italy is 40°C (104°F). That's quite hot!"
                + " If you're planning to visit or are currently there, make sure to stay hydrated and seek shade or air conditioning"
                + " when possible.");
        assertThat(parsed.usage()).isEqualTo(new Usage(558L, 51L, 0L, 0L));
        assertThat(parsed.stopReason()).isEqualTo("end_turn");
    }

    // ================================================================ helpers

    /** What a stream left: its listener, usage, replay and stop reason, and how it failed if it did. */
    record Parsed(RecordingListener listener, Usage usage, ProviderReplay replay, String stopReason, ProviderException failure) {
    }

    /** Reads {@code sse} as the provider reads a body: every event, then the end of the body; a failure is kept, not thrown. */
    static Parsed parse(String sse) {
        RecordingListener listener = new RecordingListener();
        AnthropicStreamParser parser = new AnthropicStreamParser(listener);
        ProviderException failure = null;
        try {
            for (String data : FixtureFiles.sseData(sse)) {
                parser.accept(data);
            }
            parser.finish();
        } catch (ProviderException e) {
            failure = e;
        }
        return new Parsed(listener, parser.usage(), parser.replay(), parser.stopReason(), failure);
    }

    /** The model that answered (the model message_start names): a trace's {@code gen_ai.response.model}. */
    @Test
    void theAnsweringModelIsRead() throws Exception {
        AnthropicStreamParser parser = new AnthropicStreamParser(new RecordingListener());
        for (String data : FixtureFiles.sseData(FixtureFiles.read("anthropic-cache-read-streaming.turn1.sse"))) {
            parser.accept(data);
        }
        assertThat(parser.model()).isEqualTo("claude-sonnet-4-6");
    }
}
