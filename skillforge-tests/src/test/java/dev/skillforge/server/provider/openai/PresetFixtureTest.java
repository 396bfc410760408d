package dev.skillforge.server.provider.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.agent.ProviderException;
import dev.skillforge.core.agent.Usage;
import dev.skillforge.core.transcript.Entry;
import dev.skillforge.core.transcript.ProviderReplay;
import dev.skillforge.server.json.Json;
import dev.skillforge.testkit.FixtureFiles;
import dev.skillforge.server.ProviderFactory;
import dev.skillforge.testkit.RecordingListener;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The recorded DeepSeek, Z.AI GLM and llama.cpp streams read through each preset's parser settings,
 * and the next request each preset builds from them compared with the request the recording's
 * client sent: the replayed {@code reasoning_content} is the same bytes.
 */
class PresetFixtureTest {

    // ================================================================ DeepSeek

    @Test
    void deepSeekReasonerThroughTheDeepSeekPresetReportsPromptCacheHitsAndReplaysTheReasoning() {
        Parsed parsed = parse(FixtureFiles.read("deepseek-reasoner-tool-call.chunks.jsonl"), OpenAiPresets.DEEPSEEK, true);

        assertThat(parsed.usage()).isEqualTo(new Usage(339L, 83L, 320L));
        assertThat(parsed.listener().allReasoning()).startsWith("The user is asking for the weather in San Francisco.");
        assertThat(parsed.replay().data()).isEqualTo(parsed.listener().allReasoning());

        String body = nextRequest(parsed, OpenAiPresets.DEEPSEEK);

        assertThat(body).contains("\"reasoning_content\":" + Json.write(new TextNode(parsed.listener().allReasoning())));
    }

    @Test
    void deepSeekCacheSplitWithoutReasoningStillReplaysAnEmptyReasoningContent() {
        Parsed parsed = parse(FixtureFiles.read("deepseek-cache-split-streaming.turn1.sse"), OpenAiPresets.DEEPSEEK, false);

        assertThat(parsed.usage()).isEqualTo(new Usage(900L, 2L, 896L));
        assertThat(parsed.replay()).isNull();

        assertThat(nextRequest(parsed, OpenAiPresets.DEEPSEEK)).contains("{\"role\":\"assistant\",\"content\":\"cached\",\"reasoning_content\":\"\"}");
        assertThat(nextRequest(parsed, OpenAiPresets.OPENAI)).contains("{\"role\":\"assistant\",\"content\":\"cached\"}");
    }

    // ================================================================ Z.AI GLM

    @Test
    void glmTurn1ThroughTheGlmPresetReplaysTheReasoningAsTheRecordedTurn2RequestDid() throws Exception {
        Parsed parsed = parse(FixtureFiles.read("zai-glm-4.7-flash-tool-streaming.turn1.sse"), OpenAiPresets.GLM, false);
        String recordedRequest = FixtureFiles.read("zai-glm-4.7-flash-tool-streaming.turn2.request.json");
        JsonNode recordedAssistant = Json.parse(recordedRequest).at("/messages/2");

        assertThat(parsed.usage()).isEqualTo(new Usage(173L, 93L, 172L));
        assertThat(parsed.listener().sources).isEmpty(); // the recording used no web search
        assertThat(parsed.listener().allText()).isEqualTo(recordedAssistant.get("content").asText());
        String body = nextRequest(parsed, OpenAiPresets.GLM);
        String reasoningOnTheWire = "\"reasoning_content\":" + Json.write(recordedAssistant.get("reasoning_content"));

        assertThat(parsed.replay().data()).isEqualTo(recordedAssistant.get("reasoning_content").asText());
        assertThat(body).contains(reasoningOnTheWire);
        assertThat(recordedRequest).contains(reasoningOnTheWire);
        assertThat(body).contains("\"thinking\":{\"type\":\"enabled\",\"clear_thinking\":false}");
    }

    @Test
    void glmTurn2ThroughTheGlmPresetKeepsReasoningTrailingSpacesAndCachedTokens() {
        Parsed parsed = parse(FixtureFiles.read("zai-glm-4.7-flash-tool-streaming.turn2.sse"), OpenAiPresets.GLM, false);

        assertThat(parsed.usage()).isEqualTo(new Usage(272L, 156L, 43L));
        assertThat(parsed.replay().data()).contains("Florence, Italy. The response is quite brief and doesn't provide additional details like conditions, humidity, wind, etc. \n\n");
    }

    @Test
    void glmWebSearchResultsBecomeSourcesOnlyThroughTheGlmPreset() {
        String sse = "data: {\"id\":\"1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}],"
                + "\"web_search\":[{\"icon\":\"\",\"title\":\"Cold brew guide\",\"link\":\"https://coffee.example/cold-brew\",\"media\":\"Coffee\","
                + "\"content\":\"Steep 12 hours\",\"refer\":\"ref_1\",\"publish_date\":\"2025-01-01\"},"
                + "{\"title\":\"Again\",\"link\":\"https://coffee.example/cold-brew\"},{\"title\":\"No link\"}]}\n\n"
                + "data: {\"id\":\"1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Steep it 12 hours.\"},\"finish_reason\":\"stop\"}]}\n\n"
                + "data: [DONE]\n\n";

        assertThat(parse(sse, OpenAiPresets.GLM, false).listener().sources).containsExactly("https://coffee.example/cold-brew Cold brew guide");
        assertThat(parse(sse, OpenAiPresets.OPENAI, false).listener().sources).isEmpty();
    }

    // ================================================================ llama.cpp

    @Test
    void llamaCppGptOssTurn1ThroughTheLlamaCppPresetReplaysTheReasoningAsTheRecordedTurn2RequestDid() throws Exception {
        Parsed parsed = parse(FixtureFiles.read("llamacpp-gpt-oss-tool-streaming.turn1.sse"), OpenAiPresets.LLAMACPP, false);
        String recordedRequest = FixtureFiles.read("llamacpp-gpt-oss-tool-streaming.turn2.request.json");
        JsonNode recordedReasoning = Json.parse(recordedRequest).at("/messages/2/reasoning_content");

        assertThat(parsed.usage()).isEqualTo(new Usage(139L, 41L, 138L));
        assertThat(parsed.replay().data()).isEqualTo(recordedReasoning.asText());
        String body = nextRequest(parsed, OpenAiPresets.LLAMACPP);
        assertThat(body).contains("\"reasoning_content\":" + Json.write(recordedReasoning)).endsWith(",\"cache_prompt\":true}");
        assertThat(recordedRequest).contains("\"reasoning_content\":" + Json.write(recordedReasoning));
    }

    @Test
    void llamaCppQwen3ThroughTheLlamaCppPresetReportsTheSlotCacheReuse() {
        assertThat(parse(FixtureFiles.read("llamacpp-qwen3-cache-prompt-streaming.turn1.sse"), OpenAiPresets.LLAMACPP, false).usage())
                .isEqualTo(new Usage(2825L, 8L, 0L));
        assertThat(parse(FixtureFiles.read("llamacpp-qwen3-cache-prompt-streaming.turn2.sse"), OpenAiPresets.LLAMACPP, false).usage())
                .isEqualTo(new Usage(2825L, 8L, 2824L));
        assertThat(parse(FixtureFiles.read("llamacpp-qwen3-cache-prompt-streaming.turn3.sse"), OpenAiPresets.LLAMACPP, false).usage())
                .isEqualTo(new Usage(2854L, 16L, 2825L));
    }

    // ================================================================ vLLM, Ollama: cached tokens unknown unless reported

    @Test
    void vllmWithoutPromptTokenDetailsAndOllamaLeaveTheCachedFigureUnknown() {
        String sse = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\n"
                + "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":1,\"total_tokens\":13}}\n\n"
                + "data: [DONE]\n\n";

        assertThat(parse(sse, OpenAiPresets.VLLM, false).usage()).isEqualTo(new Usage(12L, 1L, null));
        assertThat(parse(sse, OpenAiPresets.OLLAMA, false).usage()).isEqualTo(new Usage(12L, 1L, null));
    }

    @Test
    void vllmWithPromptTokenDetailsReportsThem() {
        String sse = "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":2000,\"completion_tokens\":1,\"total_tokens\":2001,"
                + "\"prompt_tokens_details\":{\"cached_tokens\":1984}}}\n\ndata: [DONE]\n\n";

        assertThat(parse(sse, OpenAiPresets.VLLM, false).usage()).isEqualTo(new Usage(2000L, 1L, 1984L));
    }

    @Test
    void kimiCachedTokensInsideTheChoiceAreRead() {
        String sse = "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\",\"usage\":{\"prompt_tokens\":1500,"
                + "\"completion_tokens\":9,\"total_tokens\":1509,\"cached_tokens\":1024}}]}\n\ndata: [DONE]\n\n";

        assertThat(parse(sse, OpenAiPresets.KIMI, false).usage()).isEqualTo(new Usage(1500L, 9L, 1024L));
    }

    // ================================================================ helpers

    record Parsed(RecordingListener listener, Usage usage, ProviderReplay replay) {
    }

    /** A recording read with the preset's parser settings: a .sse body, or .chunks.jsonl lines then [DONE]. */
    static Parsed parse(String recording, ChatOptions options, boolean chunksJsonl) {
        RecordingListener listener = new RecordingListener();
        OpenAiStreamParser parser = new OpenAiStreamParser(listener, options.webSearch());
        try {
            if (chunksJsonl) {
                for (String line : recording.lines().filter(l -> !l.isBlank()).toList()) {
                    parser.accept(line);
                }
                parser.accept("[DONE]");
            } else {
                for (String data : FixtureFiles.sseData(recording)) {
                    if (!parser.accept(data)) {
                        break;
                    }
                }
            }
        } catch (ProviderException e) {
            throw new AssertionError(e.code() + " " + e.getMessage(), e);
        }
        assertThat(parser.sawDone()).isTrue();
        return new Parsed(listener, parser.usage(), parser.replay());
    }

    /** The next request after the parsed answer, as the preset builds it. */
    private static String nextRequest(Parsed parsed, ChatOptions options) {
        ModelCall call = new ModelCall("You are a helpful assistant", List.of(new Entry.User("What's the weather?"),
                new Entry.Assistant(parsed.listener().allText(), parsed.replay()), new Entry.Tool("$ weather\n40 C")), "k");
        return Json.write(OpenAiChatRequest.build(call, "m", false, options));
    }
}
