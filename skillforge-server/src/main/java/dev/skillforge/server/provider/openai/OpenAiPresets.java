package dev.skillforge.server.provider.openai;

import dev.skillforge.server.provider.ProviderPreset;
import dev.skillforge.server.provider.ProviderSpec;
import dev.skillforge.server.provider.openai.ChatOptions.ReasoningReplay;

/**
 * The chat-completions options of each OpenAI-compatible preset, stated here, in one place:
 *
 * <table>
 *   <caption>What each preset sends and reads besides the common chat-completions body
 *   ({@code model, messages, stream, stream_options.include_usage})</caption>
 *   <tr><th>preset</th><th>{@code prompt_cache_key}</th><th>adds</th><th>{@code reasoning_content} replay</th><th>reads</th></tr>
 *   <tr><td>openai</td><td>yes (stable per conversation)</td><td>-</td><td>when present</td><td>{@code prompt_tokens_details.cached_tokens}</td></tr>
 *   <tr><td>kimi</td><td>no (Moonshot caches by prefix, ignores the key)</td><td>-</td><td>when present</td><td>{@code usage.cached_tokens}, also in {@code choices[0].usage}</td></tr>
 *   <tr><td>glm</td><td>no</td><td>{@code thinking: {type: enabled, clear_thinking: false}}; the {@code web_search} tool</td><td>when present</td><td>{@code cached_tokens}; {@code web_search} results as sources</td></tr>
 *   <tr><td>deepseek</td><td>no (automatic disk cache)</td><td>-</td><td>always ({@code ""} when there is none)</td><td>{@code prompt_cache_hit_tokens}</td></tr>
 *   <tr><td>openrouter</td><td>no</td><td>-</td><td>when present</td><td>{@code cached_tokens} when the upstream reports it</td></tr>
 *   <tr><td>vllm</td><td>no</td><td>-</td><td>when present</td><td>{@code cached_tokens} only with {@code --enable-prompt-tokens-details}: absent is unknown</td></tr>
 *   <tr><td>llamacpp</td><td>no</td><td>{@code cache_prompt: true}</td><td>when present</td><td>{@code timings.cache_n}</td></tr>
 *   <tr><td>ollama</td><td>no</td><td>-</td><td>when present</td><td>nothing: cached tokens unknown</td></tr>
 * </table>
 */
public final class OpenAiPresets {

    public static final ChatOptions OPENAI = ChatOptions.PLAIN;
    public static final ChatOptions KIMI = ChatOptions.PLAIN;
    public static final ChatOptions GLM = new ChatOptions(ReasoningReplay.WHEN_PRESENT, false, true, true);
    public static final ChatOptions GLM_WITHOUT_WEB_SEARCH = new ChatOptions(ReasoningReplay.WHEN_PRESENT, false, true, false);
    public static final ChatOptions DEEPSEEK = new ChatOptions(ReasoningReplay.ALWAYS, false, false, false);
    public static final ChatOptions OPENROUTER = ChatOptions.PLAIN;
    public static final ChatOptions VLLM = ChatOptions.PLAIN;
    public static final ChatOptions LLAMACPP = new ChatOptions(ReasoningReplay.WHEN_PRESENT, true, false, false);
    public static final ChatOptions OLLAMA = ChatOptions.PLAIN;

    private OpenAiPresets() {
    }

    /** Whether the preset sends {@code prompt_cache_key}: only where the API documents it (OpenAI). */
    public static boolean sendsPromptCacheKey(ProviderPreset preset) {
        return preset == ProviderPreset.OPENAI;
    }

    /** The chat-completions options of an OpenAI-compatible preset with the spec's tools. */
    public static ChatOptions chatOptions(ProviderSpec spec) {
        return switch (spec.preset()) {
            case OPENAI -> OPENAI;
            case KIMI -> KIMI;
            case GLM -> spec.hasTool("web_search") ? GLM : GLM_WITHOUT_WEB_SEARCH;
            case DEEPSEEK -> DEEPSEEK;
            case OPENROUTER -> OPENROUTER;
            case VLLM -> VLLM;
            case LLAMACPP -> LLAMACPP;
            case OLLAMA -> OLLAMA;
            case SIM, GEMINI, ANTHROPIC -> throw new IllegalArgumentException(spec.preset().id() + " is not an OpenAI-compatible preset");
        };
    }
}
