package dev.skillforge.bench.cache;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.agent.ModelProvider;
import dev.skillforge.server.provider.RetryPolicy;
import dev.skillforge.server.provider.StreamingHttp;
import dev.skillforge.server.provider.gemini.GeminiProvider;
import dev.skillforge.server.provider.gemini.GeminiRequest;
import dev.skillforge.server.provider.openai.OpenAiChatRequest;
import dev.skillforge.server.provider.openai.OpenAiCompatibleProvider;
import dev.skillforge.server.cache.CacheRule;
import dev.skillforge.server.provider.sim.SimProviderServer;

import java.time.Duration;
import java.util.List;
import java.util.function.Function;

/**
 * A cache rule the simulated provider implements, and the wire format it is reached in: OpenAI's
 * chat completions (the OpenAI and DeepSeek rules, by {@code prompt_cache_key}) or Gemini's native
 * API (implicit caching, by model).
 */
record RuleCase(String name, boolean gemini, CacheRule rule) {

    static final List<RuleCase> ALL = List.of(
            new RuleCase("OpenAI (1024, +128)", false, CacheRule.OPENAI),
            new RuleCase("Gemini implicit (Flash)", true, CacheRule.forGeminiModel(SimProviderServer.MODEL)),
            new RuleCase("DeepSeek (64-token units)", false, CacheRule.DEEPSEEK));

    private static final StreamingHttp.Timeouts TIMEOUTS = new StreamingHttp.Timeouts(Duration.ofSeconds(30), Duration.ofSeconds(30));
    /** A failed call is counted, not retried: nothing the simulation answers here gets better on a second try. */
    private static final RetryPolicy NO_RETRY = new RetryPolicy(0, Duration.ZERO, Duration.ZERO);

    /** The simulated models: this rule (Gemini's follows the model's name) and a window of {@code windowTokens}. */
    SimProviderServer.Options simOptions(int windowTokens) {
        SimProviderServer.Options options = SimProviderServer.Options.DEFAULT.withContextWindow(windowTokens).recordingRequests();
        return gemini ? options : options.withCacheRule(rule);
    }

    /** The real client for this wire format, pointed at {@code sim}. */
    ModelProvider client(SimProviderServer sim) {
        return gemini
                ? new GeminiProvider(new GeminiProvider.Settings(sim.geminiBaseUrl(), null, SimProviderServer.MODEL, TIMEOUTS, NO_RETRY,
                GeminiRequest.Options.NONE))
                : new OpenAiCompatibleProvider(new OpenAiCompatibleProvider.Settings(sim.baseUrl(), null, SimProviderServer.MODEL, true,
                TIMEOUTS, NO_RETRY));
    }

    /** What that client sends of a call (the part the prefix guard checks). */
    Function<ModelCall, JsonNode> serialiser() {
        return gemini ? GeminiRequest::conversation : OpenAiChatRequest::messages;
    }
}
