package dev.skillforge.server.provider.openai;

/**
 * A vendor's quirks on top of plain chat completions: what the request adds to the common body, how
 * {@code reasoning_content} is replayed, and what the stream parser reads besides the common fields.
 * Every preset names its options explicitly (see {@link OpenAiPresets}); {@link #PLAIN} is what
 * the client did before presets existed.
 *
 * <p>The common body is always {@code model, messages, stream: true,
 * stream_options: {include_usage: true}}, then {@code prompt_cache_key} where the settings ask for
 * it; these options add, in this order: {@code cache_prompt}, {@code thinking}, {@code tools}.
 *
 * @param reasoningReplay  when an assistant message carries {@code reasoning_content}
 * @param cachePrompt      llama.cpp: {@code "cache_prompt": true}, reuse the slot's KV cache for the shared prefix
 * @param preservedThinking GLM: {@code "thinking": {"type": "enabled", "clear_thinking": false}}, keep earlier
 *                         turns' reasoning in the context (it is then replayed verbatim)
 * @param webSearch        GLM: the {@code web_search} tool ({@link #GLM_WEB_SEARCH_TOOL}), and the results in the
 *                         stream's top-level {@code web_search} array become source events
 */
public record ChatOptions(ReasoningReplay reasoningReplay, boolean cachePrompt, boolean preservedThinking, boolean webSearch) {

    /** When {@code reasoning_content} goes back on an assistant message. */
    public enum ReasoningReplay {
        /** When the model produced a reasoning field (even an empty one): it is sent back exactly as it streamed. */
        WHEN_PRESENT,
        /** On every assistant message: the stored reasoning, or {@code ""} when there is none (DeepSeek). */
        ALWAYS
    }

    /** The {@code web_search} tool object sent to GLM, in full. */
    public static final String GLM_WEB_SEARCH_TOOL =
            "{\"type\":\"web_search\",\"web_search\":{\"enable\":true,\"search_engine\":\"search_std\",\"search_result\":true}}";

    public static final ChatOptions PLAIN = new ChatOptions(ReasoningReplay.WHEN_PRESENT, false, false, false);

    public ChatOptions {
        java.util.Objects.requireNonNull(reasoningReplay, "reasoningReplay");
    }
}
