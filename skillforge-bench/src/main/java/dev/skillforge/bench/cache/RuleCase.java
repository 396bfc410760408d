package dev.skillforge.bench.cache;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.agent.ModelProvider;
import dev.skillforge.server.cache.CacheRule;
import dev.skillforge.server.price.PriceTable;
import dev.skillforge.server.provider.RetryPolicy;
import dev.skillforge.server.provider.StreamingHttp;
import dev.skillforge.server.provider.anthropic.AnthropicProvider;
import dev.skillforge.server.provider.anthropic.AnthropicRequest;
import dev.skillforge.server.provider.gemini.GeminiProvider;
import dev.skillforge.server.provider.gemini.GeminiRequest;
import dev.skillforge.server.provider.openai.OpenAiChatRequest;
import dev.skillforge.server.provider.openai.OpenAiCompatibleProvider;
import dev.skillforge.server.provider.sim.SimProviderServer;

import java.time.Duration;
import java.util.List;
import java.util.function.Function;

/**
 * A cache rule the simulated provider implements, the wire format it is reached in (OpenAI's chat completions for
 * the OpenAI and DeepSeek rules, by {@code prompt_cache_key}; Gemini's native API, implicit caching by model;
 * Anthropic's Messages API, automatic caching with its 20-block look-back and writes), and the model whose prices
 * the suite is costed at (from the bundled price table).
 */
record RuleCase(String name, Wire wire, CacheRule rule, PriceTable.Entry price) {

    /** The wire formats the simulation speaks. */
    enum Wire { OPENAI, GEMINI, ANTHROPIC }

    static final List<RuleCase> ALL = List.of(
            new RuleCase("OpenAI (1024, +128)", Wire.OPENAI, CacheRule.OPENAI, priced("openai", "gpt-4o-mini")),
            new RuleCase("Gemini implicit (Flash)", Wire.GEMINI, CacheRule.forGeminiModel(SimProviderServer.MODEL),
                    priced("gemini", "gemini-2.5-flash")),
            new RuleCase("DeepSeek (64-token units)", Wire.OPENAI, CacheRule.DEEPSEEK, priced("deepseek", "deepseek-chat")),
            new RuleCase("Anthropic (automatic)", Wire.ANTHROPIC, CacheRule.forAnthropicModel(SimProviderServer.MODEL),
                    priced("anthropic", "claude-sonnet-5-5")));

    private static final StreamingHttp.Timeouts TIMEOUTS = new StreamingHttp.Timeouts(Duration.ofSeconds(30), Duration.ofSeconds(30));
    /** A failed call is counted, not retried: nothing the simulation answers here gets better on a second try. */
    private static final RetryPolicy NO_RETRY = new RetryPolicy(0, Duration.ZERO, Duration.ZERO);

    private static PriceTable.Entry priced(String provider, String model) {
        return PriceTable.bundled().find(provider, model)
                .orElseThrow(() -> new IllegalStateException("the price table has no " + provider + " " + model));
    }

    /** The simulated models: this rule (Gemini's follows the model's name, Anthropic's is its own) and a window of {@code windowTokens}. */
    SimProviderServer.Options simOptions(int windowTokens) {
        SimProviderServer.Options options = SimProviderServer.Options.DEFAULT.withContextWindow(windowTokens).recordingRequests();
        return wire == Wire.OPENAI ? options.withCacheRule(rule) : options;
    }

    /** The real client for this wire format, pointed at {@code sim}. */
    ModelProvider client(SimProviderServer sim) {
        return switch (wire) {
            case GEMINI -> new GeminiProvider(new GeminiProvider.Settings(sim.geminiBaseUrl(), null, SimProviderServer.MODEL, TIMEOUTS,
                    NO_RETRY, GeminiRequest.Options.NONE));
            case ANTHROPIC -> new AnthropicProvider(new AnthropicProvider.Settings(sim.anthropicBaseUrl(), null, SimProviderServer.MODEL,
                    TIMEOUTS, NO_RETRY, AnthropicRequest.Options.DEFAULT));
            case OPENAI -> new OpenAiCompatibleProvider(new OpenAiCompatibleProvider.Settings(sim.baseUrl(), null, SimProviderServer.MODEL,
                    true, TIMEOUTS, NO_RETRY));
        };
    }

    /** What that client sends of a call (the part the prefix guard checks). */
    Function<ModelCall, JsonNode> serialiser() {
        return switch (wire) {
            case GEMINI -> GeminiRequest::conversation;
            case ANTHROPIC -> AnthropicRequest::conversation;
            case OPENAI -> OpenAiChatRequest::messages;
        };
    }
}
