package dev.skillforge.server.provider.gemini;

import com.fasterxml.jackson.databind.JsonNode;
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
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * A streaming client for Gemini's native API: {@code POST {base}/v1beta/models/{model}:streamGenerateContent?alt=sse},
 * the key in the {@code x-goog-api-key} header (never in the URL, so it cannot end up in a log of URLs).
 *
 * <p>The request is {@link GeminiRequest} (the model's parts replayed as they streamed), the stream is
 * read by {@link GeminiStreamParser} until the body ends (CRLF and LF framing alike). Failures are
 * {@link ProviderException}s with Google's own message and status: an HTTP error status, an error
 * mid-stream, a finish reason other than {@code STOP}, a body that ends without one, a stall longer
 * than the idle timeout; every message redacted of the key and anything key-like
 * ({@link ProviderErrors#redacted}). Retries, timeouts and stops are those of the OpenAI-compatible client
 * ({@link ProviderCalls}): 429, 5xx and failed connections are tried again with backoff, honouring
 * {@code Retry-After}, only before anything was read.
 */
public final class GeminiProvider implements ModelProvider {

    /** How to reach Gemini. {@code baseUrl} is the root before {@code /v1beta}, e.g. {@code https://generativelanguage.googleapis.com}. */
    public record Settings(String baseUrl, String apiKey, String model, StreamingHttp.Timeouts timeouts, RetryPolicy retry,
                           GeminiRequest.Options options) {
        public Settings {
            while (baseUrl.endsWith("/")) {
                baseUrl = baseUrl.substring(0, baseUrl.length() - 1);
            }
            if (model.startsWith("models/")) {
                model = model.substring("models/".length());
            }
        }

        /** The API key stays out of logs. */
        @Override
        public String toString() {
            return "Settings[baseUrl=" + baseUrl + ", apiKey=" + (apiKey == null ? "none" : "(set)") + ", model=" + model
                    + ", timeouts=" + timeouts + ", retry=" + retry + ", options=" + options + "]";
        }
    }

    private final Settings settings;
    private final ProviderCalls.Wire wire;
    private final URI endpoint;

    public GeminiProvider(Settings settings) {
        this.settings = settings;
        this.wire = new ProviderCalls.Wire(settings.timeouts(), settings.retry(), settings.apiKey(), GeminiProvider::errorMessage);
        this.endpoint = endpoint(settings.baseUrl(), settings.model());
    }

    /** {@code {base}/v1beta/models/{model}:streamGenerateContent?alt=sse}. */
    public static URI endpoint(String baseUrl, String model) {
        String segment = URLEncoder.encode(model, StandardCharsets.UTF_8).replace("+", "%20");
        return URI.create(baseUrl + "/v1beta/models/" + segment + ":streamGenerateContent?alt=sse");
    }

    public Settings settings() {
        return settings;
    }

    @Override
    public ModelReply stream(ModelCall call, ModelStreamListener listener, Cancellation cancellation) throws ProviderException {
        byte[] body = Json.bytes(GeminiRequest.build(call, settings.options()));
        return ProviderCalls.stream(wire, request(body), cancellation, new GeminiStreamParser(listener));
    }

    private ProviderRequest request(byte[] body) {
        ProviderRequest.Builder builder = ProviderCalls.post(endpoint, body);
        if (settings.apiKey() != null && !settings.apiKey().isBlank()) {
            builder.header("x-goog-api-key", settings.apiKey());
        }
        return builder.build();
    }

    /**
     * Google's message from an error body: {@code {"error":{"code","message","status"}}} (also inside
     * a one-element array, as the JSON-array stream framing sends it), or the text itself.
     */
    public static String errorMessage(String body) {
        return ProviderErrors.fromBody(body, json -> {
            JsonNode answer = json != null && json.isArray() && !json.isEmpty() ? json.get(0) : json;
            return answer != null && answer.has("error") ? GeminiStreamParser.errorMessage(answer.get("error")) : null;
        });
    }
}
