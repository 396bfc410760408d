package dev.skillforge.server.provider.anthropic;

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

/**
 * A streaming client for Anthropic's Messages API: {@code POST {base}/v1/messages} with {@code stream: true},
 * the key in the {@code x-api-key} header and {@code anthropic-version: }{@value #API_VERSION}.
 *
 * <p>The request is {@link AnthropicRequest} (the answer's content blocks replayed as they streamed, the prompt
 * cache asked for), the stream is read by {@link AnthropicStreamParser} up to {@code message_stop}. Failures are
 * {@link ProviderException}s with Anthropic's own message and error type: an HTTP error status, an {@code error}
 * event mid-stream, a stop reason other than {@code end_turn}, a body that ends early, a stall longer than the idle
 * timeout; every message redacted of the key and anything key-like ({@link ProviderErrors#redacted}). Retries, timeouts and stops are those of every client ({@link ProviderCalls}): 429, 5xx (529
 * {@code overloaded_error} included) and failed connections are tried again with backoff, honouring
 * {@code Retry-After}, only before anything was read.
 */
public final class AnthropicProvider implements ModelProvider {

    /** The API version every request names; the request and stream shapes here are this version's. */
    public static final String API_VERSION = "2023-06-01";

    /** How to reach Anthropic. {@code baseUrl} is the root before {@code /v1}, e.g. {@code https://api.anthropic.com}. */
    public record Settings(String baseUrl, String apiKey, String model, StreamingHttp.Timeouts timeouts, RetryPolicy retry,
                           AnthropicRequest.Options options) {
        public Settings {
            while (baseUrl.endsWith("/")) {
                baseUrl = baseUrl.substring(0, baseUrl.length() - 1);
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

    public AnthropicProvider(Settings settings) {
        this.settings = settings;
        this.wire = new ProviderCalls.Wire(settings.timeouts(), settings.retry(), settings.apiKey(), AnthropicProvider::errorMessage);
        this.endpoint = URI.create(settings.baseUrl() + "/v1/messages");
    }

    public Settings settings() {
        return settings;
    }

    @Override
    public ModelReply stream(ModelCall call, ModelStreamListener listener, Cancellation cancellation) throws ProviderException {
        byte[] body = Json.bytes(AnthropicRequest.build(call, settings.model(), settings.options()));
        return ProviderCalls.stream(wire, request(body), cancellation, new AnthropicStreamParser(listener));
    }

    private ProviderRequest request(byte[] body) {
        ProviderRequest.Builder builder = ProviderCalls.post(endpoint, body).header("anthropic-version", API_VERSION);
        if (settings.apiKey() != null && !settings.apiKey().isBlank()) {
            builder.header("x-api-key", settings.apiKey());
        }
        return builder.build();
    }

    /** Anthropic's message from an error body: {@code {"type":"error","error":{"type","message"}}}, or the text itself. */
    public static String errorMessage(String body) {
        return ProviderErrors.fromBody(body, json -> json != null && json.has("error")
                ? AnthropicStreamParser.errorMessage(json.get("error")) : null);
    }
}
