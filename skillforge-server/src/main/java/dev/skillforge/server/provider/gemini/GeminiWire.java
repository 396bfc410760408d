package dev.skillforge.server.provider.gemini;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.agent.ModelProvider;
import dev.skillforge.server.cache.CacheRule;
import dev.skillforge.server.document.DocumentLimits;
import dev.skillforge.server.document.ImageFormat;
import dev.skillforge.server.document.Vision;
import dev.skillforge.server.provider.ProviderPreset;
import dev.skillforge.server.provider.ProviderSpec;
import dev.skillforge.server.provider.RetryPolicy;
import dev.skillforge.server.provider.StreamingHttp;
import dev.skillforge.server.provider.WireAdapter;

import java.util.EnumSet;
import java.util.function.Function;

/** Gemini's {@code streamGenerateContent}, with its tools (Google Search, URL context) and thoughts as the settings say. */
public final class GeminiWire implements WireAdapter {

    /**
     * Gemini: {@code inline_data} parts. Google's input-file page, read on 2026-12-01: a request with inline data is at most
     * 20 MB, base64 included; PNG, JPEG, WebP, HEIC, HEIF (no GIF).
     */
    public static final Vision VISION = new Vision(true, EnumSet.of(ImageFormat.PNG, ImageFormat.JPEG, ImageFormat.WEBP),
            DocumentLimits.MAX_FILE_BYTES, DocumentLimits.MAX_IMAGE_SIDE, 100, 12 * Vision.MIB, Integer.MAX_VALUE, DocumentLimits.MAX_IMAGE_SIDE);

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
        return VISION;
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
