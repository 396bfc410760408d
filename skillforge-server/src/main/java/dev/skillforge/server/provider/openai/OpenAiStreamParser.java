package dev.skillforge.server.provider.openai;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.core.agent.ModelReply;
import dev.skillforge.core.agent.ModelStreamListener;
import dev.skillforge.core.agent.ProviderException;
import dev.skillforge.core.agent.Usage;
import dev.skillforge.core.transcript.ProviderReplay;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.provider.ProviderErrors;
import dev.skillforge.server.provider.StreamParser;

import java.util.HashSet;
import java.util.Set;

/**
 * Turns the {@code data:} payloads of a chat-completions stream into listener calls, and keeps
 * what the reply leaves: usage (the last reported wins) and the {@code reasoning_content} to
 * replay.
 *
 * <p>Cached prompt tokens, first present field wins, absent means unknown: {@code
 * usage.prompt_tokens_details.cached_tokens} (OpenAI, vLLM with prompt token details, llama.cpp),
 * {@code usage.cached_tokens} (Kimi; also inside {@code choices[0].usage} when streaming), {@code
 * usage.prompt_cache_hit_tokens} (DeepSeek), {@code timings.cache_n} (llama.cpp). Cache writes, where an
 * OpenAI response reports them (the models that bill writes above plain input): {@code
 * usage.prompt_tokens_details.cache_write_tokens}, beside {@code cached_tokens}, or {@code usage.cache_write_tokens};
 * absent means unknown.
 *
 * <p>With web-search sources on (GLM), each result of a top-level {@code web_search} array becomes
 * one {@code onSource(link, title)}, the first time its link appears.
 */
final class OpenAiStreamParser implements StreamParser {

    private final ModelStreamListener listener;
    private final Set<String> sources;
    private StringBuilder reasoning;
    private Usage usage = Usage.UNKNOWN;
    private boolean done;
    /** Why the model stopped ({@code stop}, {@code length}, …), or {@code null} if not said. */
    private String finishReason;
    private String model;

    public OpenAiStreamParser(ModelStreamListener listener) {
        this(listener, false);
    }

    /**
     * @param webSearchSources read GLM's top-level {@code web_search} results ({@code link}, {@code title})
     *                         as source events, each link once
     */
    public OpenAiStreamParser(ModelStreamListener listener, boolean webSearchSources) {
        this.listener = listener;
        this.sources = webSearchSources ? new HashSet<>() : null;
    }

    /**
     * Reads one event's data.
     *
     * @return false once {@code [DONE]} arrived
     * @throws ProviderException for an error payload or data that is not JSON
     */
    @Override
    public boolean accept(String data) throws ProviderException {
        if (data.strip().equals("[DONE]")) {
            done = true;
            return false;
        }
        TextChunkReader.TextChunk simple = TextChunkReader.read(data);
        if (simple != null) {
            // The chunk of nearly every event: its text, read without building a tree (the same as the tree path below).
            if (simple.content() != null) {
                listener.onText(simple.content());
            }
            if (simple.finishReason() != null) {
                finishReason = simple.finishReason();
            }
            return true;
        }
        JsonNode chunk;
        try {
            chunk = Json.parse(data);
        } catch (JsonProcessingException e) {
            throw new ProviderException("provider_stream_error", "The provider sent malformed JSON mid-stream: " + e.getOriginalMessage());
        }
        JsonNode error = chunk.get("error");
        if (error != null && !error.isNull()) {
            throw new ProviderException("provider_stream_error", "The provider reported an error mid-stream: " + errorMessage(error));
        }
        if (sources != null) {
            readWebSearch(chunk.get("web_search"));
        }
        JsonNode choice = chunk.path("choices").path(0);
        JsonNode delta = choice.path("delta");
        String reasoningChunk = firstText(delta, "reasoning_content", "reasoning");
        if (reasoningChunk != null) {
            if (reasoning == null) {
                reasoning = new StringBuilder();
            }
            reasoning.append(reasoningChunk);
            listener.onReasoning(reasoningChunk);
        }
        String content = Json.text(delta, "content");
        if (content != null) {
            listener.onText(content);
        }
        String named = Json.text(chunk, "model");
        if (named != null && !named.isBlank()) {
            model = named;
        }
        String finish = Json.text(choice, "finish_reason");
        if (finish != null) {
            finishReason = finish;
        }
        readUsage(chunk);
        return true;
    }

    private void readWebSearch(JsonNode results) {
        if (results == null || !results.isArray()) {
            return;
        }
        for (JsonNode result : results) {
            String link = Json.text(result, "link");
            if (link != null && !link.isBlank() && sources.add(link)) {
                String title = Json.text(result, "title");
                listener.onSource(link, title == null || title.isBlank() ? link : title);
            }
        }
    }

    /** A chunk that reports usage replaces what an earlier one reported: the last report wins. */
    private void readUsage(JsonNode chunk) {
        JsonNode reported = chunk.get("usage");
        if (reported == null || !reported.isObject()) {
            reported = chunk.path("choices").path(0).get("usage");
        }
        JsonNode timings = chunk.get("timings");
        boolean hasUsage = reported != null && reported.isObject();
        boolean hasTimings = timings != null && timings.isObject();
        if (hasUsage) {
            Long cached = Json.number(reported.path("prompt_tokens_details"), "cached_tokens");
            if (cached == null) {
                cached = Json.number(reported, "cached_tokens");
            }
            if (cached == null) {
                cached = Json.number(reported, "prompt_cache_hit_tokens");
            }
            if (cached == null && hasTimings) {
                cached = Json.number(timings, "cache_n");
            }
            Long written = Json.number(reported.path("prompt_tokens_details"), "cache_write_tokens");
            if (written == null) {
                written = Json.number(reported, "cache_write_tokens");
            }
            usage = new Usage(Json.number(reported, "prompt_tokens"), outputTokens(reported), cached, written);
        } else if (hasTimings) {
            // llama.cpp without a usage object: prompt_n counts only the tokens it had to process.
            Long cacheN = Json.number(timings, "cache_n");
            Long promptN = Json.number(timings, "prompt_n");
            Long prompt = cacheN != null && promptN != null ? cacheN + promptN : null;
            usage = new Usage(prompt, Json.number(timings, "predicted_n"), cacheN);
        }
    }

    /**
     * Completion tokens with reasoning included. OpenAI counts reasoning inside
     * {@code completion_tokens}; xAI leaves it out but counts it in {@code total_tokens}, so the
     * larger of the two readings is the one that includes it.
     */
    private static Long outputTokens(JsonNode reported) {
        Long completion = Json.number(reported, "completion_tokens");
        Long total = Json.number(reported, "total_tokens");
        Long prompt = Json.number(reported, "prompt_tokens");
        if (completion == null || total == null || prompt == null) {
            return completion;
        }
        return Math.max(completion, total - prompt);
    }

    public boolean sawDone() {
        return done;
    }

    /** A stream that never reached {@code [DONE]} is incomplete; one that did hands its connection back. */
    @Override
    public boolean finish() throws ProviderException {
        if (!done) {
            throw new ProviderException("provider_stream_truncated",
                    "The provider stream ended without [DONE]: the answer is incomplete");
        }
        return true;
    }

    /** A cut-off answer is a failure, not a short answer: a command in it may be cut in half. */
    @Override
    public ModelReply reply() throws ProviderException {
        if ("length".equals(finishReason)) {
            throw new ProviderException("provider_finish_length",
                    "The model reached its output token limit: the answer is cut off (finish_reason length)");
        }
        if ("content_filter".equals(finishReason)) {
            throw new ProviderException("provider_finish_content_filter",
                    "The provider's content filter stopped the answer: the text so far is incomplete (finish_reason content_filter)");
        }
        return new ModelReply(replay(), usage(), model(), finishReason);
    }

    public Usage usage() {
        return usage;
    }

    /** The model the chunks named, or {@code null} when none did. */
    public String model() {
        return model;
    }

    public String finishReason() {
        return finishReason;
    }

    /** The reasoning to replay, or {@code null} when the stream had no reasoning field at all. */
    public ProviderReplay replay() {
        return reasoning == null ? null : new ProviderReplay(OpenAiChatRequest.REASONING_REPLAY, reasoning.toString());
    }

    private static String firstText(JsonNode node, String... fields) {
        for (String field : fields) {
            String value = Json.text(node, field);
            if (value != null) {
                return value;
            }
        }
        return null;
    }

    /** The provider's own words from an error object or string. */
    public static String errorMessage(JsonNode error) {
        return ProviderErrors.message(error, "type");
    }
}
