package dev.skillforge.server.provider;

import dev.skillforge.core.agent.ModelProvider;
import dev.skillforge.core.agent.ProviderException;
import dev.skillforge.server.config.ProviderPreset;
import dev.skillforge.server.config.ProviderSpec;
import dev.skillforge.server.provider.gemini.GeminiProvider;
import dev.skillforge.server.provider.gemini.GeminiRequest;
import dev.skillforge.server.provider.openai.ChatOptions;
import dev.skillforge.server.provider.openai.ChatOptions.ReasoningReplay;
import dev.skillforge.server.provider.openai.OpenAiChatRequest;
import dev.skillforge.server.provider.openai.OpenAiCompatibleProvider;
import dev.skillforge.server.provider.sim.DemoAgent;
import dev.skillforge.server.provider.sim.SimProviderServer;

/**
 * Builds the client for a configured provider, with each preset's wire options stated here, in one
 * place:
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
 *
 * Gemini is its own client ({@link GeminiProvider}) with {@code google_search}, {@code url_context} and
 * thought summaries as configured. The simulation is started in-process on a loopback port and reached
 * over real HTTP, in OpenAI's or Gemini's format.
 */
public final class ProviderFactory {

    public static final ChatOptions OPENAI = ChatOptions.PLAIN;
    public static final ChatOptions KIMI = ChatOptions.PLAIN;
    public static final ChatOptions GLM = new ChatOptions(ReasoningReplay.WHEN_PRESENT, false, true, true);
    public static final ChatOptions GLM_WITHOUT_WEB_SEARCH = new ChatOptions(ReasoningReplay.WHEN_PRESENT, false, true, false);
    public static final ChatOptions DEEPSEEK = new ChatOptions(ReasoningReplay.ALWAYS, false, false, false);
    public static final ChatOptions OPENROUTER = ChatOptions.PLAIN;
    public static final ChatOptions VLLM = ChatOptions.PLAIN;
    public static final ChatOptions LLAMACPP = new ChatOptions(ReasoningReplay.WHEN_PRESENT, true, false, false);
    public static final ChatOptions OLLAMA = ChatOptions.PLAIN;

    private ProviderFactory() {
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
            case SIM, GEMINI -> throw new IllegalArgumentException(spec.preset().id() + " is not an OpenAI-compatible preset");
        };
    }

    public static GeminiRequest.Options geminiOptions(ProviderSpec spec) {
        return new GeminiRequest.Options(spec.hasTool("google_search"), spec.hasTool("url_context"), spec.thoughts());
    }

    /** Builds (and for the simulation, starts) the provider; close the result to stop what it started. */
    public static ConfiguredProvider create(ProviderSpec spec, StreamingHttp.Timeouts timeouts, RetryPolicy retry) {
        return switch (spec.preset().wire()) {
            case SIM -> simulated(spec, timeouts, retry);
            case OPENAI_CHAT -> {
                var client = new OpenAiCompatibleProvider(new OpenAiCompatibleProvider.Settings(spec.baseUrl(), spec.apiKey(),
                        spec.model(), sendsPromptCacheKey(spec.preset()), timeouts, retry, chatOptions(spec)));
                ChatOptions.ReasoningReplay replay = chatOptions(spec).reasoningReplay();
                yield new ConfiguredProvider(withKeyCheck(client, spec), spec.name(), spec.model(), false,
                        call -> OpenAiChatRequest.messages(call, replay), () -> { }, spec.preset().id(), spec.keyPresent(),
                        spec.contextWindow());
            }
            case GEMINI -> {
                var client = new GeminiProvider(new GeminiProvider.Settings(spec.baseUrl(), spec.apiKey(), spec.model(),
                        timeouts, retry, geminiOptions(spec)));
                yield new ConfiguredProvider(withKeyCheck(client, spec), spec.name(), spec.model(), false,
                        GeminiRequest::conversation, () -> { }, spec.preset().id(), spec.keyPresent(), spec.contextWindow());
            }
        };
    }

    private static ConfiguredProvider simulated(ProviderSpec spec, StreamingHttp.Timeouts timeouts, RetryPolicy retry) {
        // The simulation refuses what the configured window cannot hold, as a real provider would.
        SimProviderServer sim = SimProviderServer.startOnLoopback(new DemoAgent(ConfiguredProvider.DEMO_CHUNK_DELAY),
                SimProviderServer.Options.DEFAULT.withContextWindow(spec.contextWindow()));
        if (ProviderSpec.SIM_FORMAT_GEMINI.equals(spec.simFormat())) {
            var client = new GeminiProvider(new GeminiProvider.Settings(sim.geminiBaseUrl(), null, SimProviderServer.MODEL,
                    timeouts, retry, GeminiRequest.Options.ALL));
            return new ConfiguredProvider(client, spec.name(), SimProviderServer.MODEL, true, GeminiRequest::conversation, sim,
                    spec.preset().id(), false, spec.contextWindow());
        }
        var client = new OpenAiCompatibleProvider(new OpenAiCompatibleProvider.Settings(
                sim.baseUrl(), null, SimProviderServer.MODEL, true, timeouts, retry));
        return new ConfiguredProvider(client, spec.name(), SimProviderServer.MODEL, true, OpenAiChatRequest::messages, sim,
                spec.preset().id(), false, spec.contextWindow());
    }

    /** A hosted provider without its key fails each call at once, saying which variable to set, instead of asking for a 401. */
    private static ModelProvider withKeyCheck(ModelProvider client, ProviderSpec spec) {
        if (!spec.keyRequired() || spec.keyPresent()) {
            return client;
        }
        String message = "The provider " + spec.name() + " (" + spec.preset().id() + ") has no API key: set "
                + (spec.apiKeyEnv() == null ? "its key variable" : spec.apiKeyEnv()) + " and restart the server";
        return (call, listener, cancellation) -> {
            throw new ProviderException("provider_no_key", message);
        };
    }
}
