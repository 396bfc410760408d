package dev.skillforge.server.provider.openai;

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

/** OpenAI's Chat Completions, and every preset that speaks it (Kimi, GLM, DeepSeek, OpenRouter, vLLM, llama.cpp, Ollama). */
public final class OpenAiChatWire implements WireAdapter {

    /**
     * Chat Completions: {@code image_url} parts with a {@code data:} URL. Kimi, GLM and DeepSeek take the same wire. OpenAI's
     * images-and-vision guide, read on 2026-12-01: PNG, JPEG, WebP, non-animated GIF; 50 MB and 500 images a request.
     */
    public static final Vision VISION = new Vision(true, EnumSet.allOf(ImageFormat.class), DocumentLimits.MAX_FILE_BYTES,
            DocumentLimits.MAX_IMAGE_SIDE, 500, 36 * Vision.MIB, Integer.MAX_VALUE, DocumentLimits.MAX_IMAGE_SIDE);

    @Override
    public ProviderPreset.Wire wire() {
        return ProviderPreset.Wire.OPENAI_CHAT;
    }

    @Override
    public ModelProvider client(Endpoint endpoint, ProviderSpec spec, StreamingHttp.Timeouts timeouts, RetryPolicy retry) {
        if (endpoint.simulated()) {
            return new OpenAiCompatibleProvider(new OpenAiCompatibleProvider.Settings(endpoint.baseUrl(), endpoint.apiKey(),
                    endpoint.model(), true, timeouts, retry));
        }
        return new OpenAiCompatibleProvider(new OpenAiCompatibleProvider.Settings(endpoint.baseUrl(), endpoint.apiKey(),
                endpoint.model(), OpenAiPresets.sendsPromptCacheKey(spec.preset()), timeouts, retry, OpenAiPresets.chatOptions(spec)));
    }

    @Override
    public Function<ModelCall, JsonNode> nextRequestMessages(ProviderSpec spec, boolean simulated) {
        if (simulated) {
            return OpenAiChatRequest::messages;
        }
        ChatOptions.ReasoningReplay replay = OpenAiPresets.chatOptions(spec).reasoningReplay();
        return call -> OpenAiChatRequest.messages(call, replay);
    }

    @Override
    public Vision vision() {
        return VISION;
    }

    @Override
    public boolean made(ModelProvider client) {
        return client instanceof OpenAiCompatibleProvider;
    }

    @Override
    public CacheRule simulatedCacheRule(String model) {
        return CacheRule.OPENAI;
    }
}
