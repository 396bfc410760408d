package dev.skillforge.server.provider.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.agent.ModelProvider;
import dev.skillforge.server.cache.CacheRule;
import dev.skillforge.server.document.DocumentLimits;
import dev.skillforge.server.document.ImageFormat;
import dev.skillforge.server.document.Vision;
import dev.skillforge.server.provider.AnthropicSettings;
import dev.skillforge.server.provider.ProviderPreset;
import dev.skillforge.server.provider.ProviderSpec;
import dev.skillforge.server.provider.RetryPolicy;
import dev.skillforge.server.provider.StreamingHttp;
import dev.skillforge.server.provider.WireAdapter;

import java.util.EnumSet;
import java.util.function.Function;

/** Anthropic's Messages API, with its token limit, thinking budget and cache breakpoints from the settings. */
public final class AnthropicWire implements WireAdapter {

    /**
     * Anthropic: {@code image} blocks with a base64 source. Anthropic's vision page, read on 2026-12-01: 8000 px a side,
     * 2000 px from 21 images on, 100 images a request for 200k-context models, a 32 MB request; 5 MB of base64 an image
     * (3.75 MiB of image).
     */
    public static final Vision VISION = new Vision(true, EnumSet.allOf(ImageFormat.class), 5 * Vision.MIB * 3 / 4,
            DocumentLimits.MAX_IMAGE_SIDE, 100, 20 * Vision.MIB, 21, 2000);

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
        return VISION;
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
