package dev.skillforge.server.provider.gemini;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.agent.ModelProvider;
import dev.skillforge.server.cache.CacheRule;
import dev.skillforge.server.document.Vision;
import dev.skillforge.server.provider.ProviderPreset;
import dev.skillforge.server.provider.ProviderSpec;
import dev.skillforge.server.provider.RetryPolicy;
import dev.skillforge.server.provider.StreamingHttp;
import dev.skillforge.server.provider.WireAdapter;

import java.util.function.Function;

/** Gemini's {@code streamGenerateContent}, with its tools (Google Search, URL context) and thoughts as the settings say. */
public final class GeminiWire implements WireAdapter {

    @Override
    public ProviderPreset.Wire wire() {
        return ProviderPreset.Wire.GEMINI;
    }

    @Override
    public ModelProvider client(Endpoint endpoint, ProviderSpec spec, StreamingHttp.Timeouts timeouts, RetryPolicy retry) {
        // The simulation answers every tool, so that its tests see them all.
        GeminiRequest.Options options = endpoint.simulated() ? GeminiRequest.Options.ALL
                : new GeminiRequest.Options(spec.hasTool("google_search"), spec.hasTool("url_context"), spec.thoughts());
        return new GeminiProvider(new GeminiProvider.Settings(endpoint.baseUrl(), endpoint.apiKey(), endpoint.model(), timeouts, retry, options));
    }

    @Override
    public Function<ModelCall, JsonNode> nextRequestMessages(ProviderSpec spec, boolean simulated) {
        return GeminiRequest::conversation;
    }

    @Override
    public Vision vision() {
        return Vision.GEMINI;
    }

    @Override
    public boolean made(ModelProvider client) {
        return client instanceof GeminiProvider;
    }

    @Override
    public CacheRule simulatedCacheRule(String model) {
        return CacheRule.forGeminiModel(model);
    }
}
