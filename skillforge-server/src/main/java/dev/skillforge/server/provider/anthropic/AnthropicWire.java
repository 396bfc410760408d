package dev.skillforge.server.provider.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.agent.ModelProvider;
import dev.skillforge.server.cache.CacheRule;
import dev.skillforge.server.document.Vision;
import dev.skillforge.server.provider.AnthropicSettings;
import dev.skillforge.server.provider.ProviderPreset;
import dev.skillforge.server.provider.ProviderSpec;
import dev.skillforge.server.provider.RetryPolicy;
import dev.skillforge.server.provider.StreamingHttp;
import dev.skillforge.server.provider.WireAdapter;

import java.util.function.Function;

/** Anthropic's Messages API, with its token limit, thinking budget and cache breakpoints from the settings. */
public final class AnthropicWire implements WireAdapter {

    @Override
    public ProviderPreset.Wire wire() {
        return ProviderPreset.Wire.ANTHROPIC;
    }

    @Override
    public ModelProvider client(Endpoint endpoint, ProviderSpec spec, StreamingHttp.Timeouts timeouts, RetryPolicy retry) {
        return new AnthropicProvider(new AnthropicProvider.Settings(endpoint.baseUrl(), endpoint.apiKey(), endpoint.model(), timeouts, retry,
                options(spec)));
    }

    /** What a provider in Anthropic's format asks for, from its settings (the defaults where it has none). */
    static AnthropicRequest.Options options(ProviderSpec spec) {
        AnthropicSettings settings = spec.anthropic() == null ? AnthropicSettings.DEFAULT : spec.anthropic();
        return new AnthropicRequest.Options(settings.maxTokens(), settings.thinkingBudget(), spec.thoughts(), settings.hourLongCache(),
                settings.explicitBreakpoints());
    }

    @Override
    public Function<ModelCall, JsonNode> nextRequestMessages(ProviderSpec spec, boolean simulated) {
        return AnthropicRequest::conversation;
    }

    @Override
    public Vision vision() {
        return Vision.ANTHROPIC;
    }

    @Override
    public boolean made(ModelProvider client) {
        return client instanceof AnthropicProvider;
    }

    @Override
    public CacheRule simulatedCacheRule(String model) {
        return CacheRule.forAnthropicModel(model);
    }
}
