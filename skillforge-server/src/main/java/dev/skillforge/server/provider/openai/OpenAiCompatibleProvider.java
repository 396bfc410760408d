package dev.skillforge.server.provider.openai;

import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.agent.ModelProvider;
import dev.skillforge.core.agent.ModelReply;
import dev.skillforge.core.agent.ModelStreamListener;
import dev.skillforge.core.agent.ProviderException;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.provider.ProviderCalls;
import dev.skillforge.server.provider.ProviderRequest;
import dev.skillforge.server.provider.ProviderErrors;
import dev.skillforge.server.provider.RetryPolicy;
import dev.skillforge.server.provider.StreamingHttp;

import java.net.URI;
import java.time.Duration;

/**
 * A streaming client for any OpenAI-compatible chat-completions endpoint (OpenAI, Kimi, GLM,
 * DeepSeek, OpenRouter, vLLM, llama.cpp, Ollama, the simulated provider).
 *
 * <p>Failures become {@link ProviderException}s with the provider's own message: an HTTP error
 * status, {@code data: {"error": …}} mid-stream, a body that ends without {@code [DONE]}, an answer
 * cut off by the output limit or a content filter ({@code finish_reason} {@code length} or
 * {@code content_filter}), a stall longer than the idle timeout; every message redacted of the key and
 * anything key-like ({@link ProviderErrors#redacted}). A 429 or 5xx answer, or a failed connection, is retried with backoff
 * (honouring {@code Retry-After}); that happens only before the response body was read, so never
 * after text reached the client (the HTTP side is {@link ProviderCalls}, shared with the Gemini client).
 */
public final class OpenAiCompatibleProvider implements ModelProvider {

    /**
     * How to reach the endpoint. {@code baseUrl} ends before {@code /chat/completions}, e.g.
     * {@code https://api.openai.com/v1}; {@code options} are the vendor's quirks ({@link ChatOptions#PLAIN} when not given).
     */
    public record Settings(String baseUrl, String apiKey, String model, boolean sendPromptCacheKey,
                           StreamingHttp.Timeouts timeouts, RetryPolicy retry, ChatOptions options) {
        public Settings {
            baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
            options = options == null ? ChatOptions.PLAIN : options;
        }

        public Settings(String baseUrl, String apiKey, String model, boolean sendPromptCacheKey,
                        StreamingHttp.Timeouts timeouts, RetryPolicy retry) {
            this(baseUrl, apiKey, model, sendPromptCacheKey, timeouts, retry, ChatOptions.PLAIN);
        }

        public static Settings of(String baseUrl, String apiKey, String model) {
            return new Settings(baseUrl, apiKey, model, true,
                    new StreamingHttp.Timeouts(Duration.ofSeconds(120), Duration.ofSeconds(120)), RetryPolicy.DEFAULT);
        }

        /** The API key stays out of logs. */
        @Override
        public String toString() {
            return "Settings[baseUrl=" + baseUrl + ", apiKey=" + (apiKey == null ? "none" : "(set)") + ", model=" + model
                    + ", sendPromptCacheKey=" + sendPromptCacheKey + ", timeouts=" + timeouts + ", retry=" + retry
                    + ", options=" + options + "]";
        }
    }

    private final Settings settings;
    private final ProviderCalls.Wire wire;
    private final URI endpoint;

    public OpenAiCompatibleProvider(Settings settings) {
        this.settings = settings;
        this.wire = new ProviderCalls.Wire(settings.timeouts(), settings.retry(), settings.apiKey(), OpenAiCompatibleProvider::errorMessage);
        this.endpoint = URI.create(settings.baseUrl() + "/chat/completions");
    }

    public Settings settings() {
        return settings;
    }

    @Override
    public ModelReply stream(ModelCall call, ModelStreamListener listener, Cancellation cancellation) throws ProviderException {
        byte[] body = Json.bytes(OpenAiChatRequest.build(call, settings.model(), settings.sendPromptCacheKey(), settings.options()));
        return ProviderCalls.stream(wire, request(body), cancellation, new OpenAiStreamParser(listener, settings.options().webSearch()));
    }

    private ProviderRequest request(byte[] body) {
        ProviderRequest.Builder builder = ProviderCalls.post(endpoint, body);
        if (settings.apiKey() != null && !settings.apiKey().isBlank()) {
            builder.header("Authorization", "Bearer " + settings.apiKey());
        }
        return builder.build();
    }

    /** The provider's message from an error body: {@code {"error":{"message":…}}}, {@code {"error":"…"}}, or the text itself. */
    static String errorMessage(String body) {
        return ProviderErrors.fromBody(body, json -> json != null && json.has("error")
                ? OpenAiStreamParser.errorMessage(json.get("error"))
                : Json.text(json, "message"));
    }
}
