package dev.skillforge.server.provider.openai;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.agent.ModelProvider;
import dev.skillforge.core.agent.ModelReply;
import dev.skillforge.core.agent.ModelStreamListener;
import dev.skillforge.core.agent.ProviderException;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.provider.RetryPolicy;
import dev.skillforge.server.provider.SseDataReader;
import dev.skillforge.server.provider.StreamingHttp;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A streaming client for any OpenAI-compatible chat-completions endpoint (OpenAI, Kimi, GLM,
 * DeepSeek, OpenRouter, vLLM, llama.cpp, Ollama, the simulated provider).
 *
 * <p>Failures become {@link ProviderException}s with the provider's own message: an HTTP error
 * status, {@code data: {"error": …}} mid-stream, a body that ends without {@code [DONE]}, a stall
 * longer than the idle timeout. A 429 or 5xx answer, or a failed connection, is retried with backoff
 * (honouring {@code Retry-After}); that happens only before the response body was read, so never
 * after text reached the client.
 */
public final class OpenAiCompatibleProvider implements ModelProvider {

    /** How to reach the endpoint. {@code baseUrl} ends before {@code /chat/completions}, e.g. {@code https://api.openai.com/v1}. */
    public record Settings(String baseUrl, String apiKey, String model, boolean sendPromptCacheKey,
                           StreamingHttp.Timeouts timeouts, RetryPolicy retry) {
        public Settings {
            baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        }

        public static Settings of(String baseUrl, String apiKey, String model) {
            return new Settings(baseUrl, apiKey, model, true,
                    new StreamingHttp.Timeouts(Duration.ofSeconds(120), Duration.ofSeconds(120)), RetryPolicy.DEFAULT);
        }
    }

    private static final int MAX_ERROR_BODY_CHARS = 8192;

    private final Settings settings;
    private final URI endpoint;

    public OpenAiCompatibleProvider(Settings settings) {
        this.settings = settings;
        this.endpoint = URI.create(settings.baseUrl() + "/chat/completions");
    }

    public Settings settings() {
        return settings;
    }

    @Override
    public ModelReply stream(ModelCall call, ModelStreamListener listener, Cancellation cancellation) throws ProviderException {
        byte[] body = Json.bytes(OpenAiChatRequest.build(call, settings.model(), settings.sendPromptCacheKey()));
        HttpRequest request = request(body);
        for (int retry = 0; ; retry++) {
            StreamingHttp.Response response;
            try {
                response = StreamingHttp.open(request, settings.timeouts(), cancellation);
            } catch (ProviderException e) {
                if (e.code().equals("provider_unreachable") && retry < settings.retry().maxRetries()) {
                    pause(settings.retry().delay(retry + 1, null), cancellation);
                    continue;
                }
                throw e;
            }
            try (response) {
                if (response.status() / 100 != 2) {
                    String message = errorMessage(response.readBody(MAX_ERROR_BODY_CHARS));
                    if (RetryPolicy.isRetryableStatus(response.status()) && retry < settings.retry().maxRetries()) {
                        pause(settings.retry().delay(retry + 1, response.headers()), cancellation);
                        continue;
                    }
                    throw new ProviderException("provider_http_error",
                            "The provider answered HTTP " + response.status() + ": " + message);
                }
                return readStream(response, listener);
            }
        }
    }

    private ModelReply readStream(StreamingHttp.Response response, ModelStreamListener listener) throws ProviderException {
        OpenAiStreamParser parser = new OpenAiStreamParser(listener);
        // Keep-alive comments (": ping") prove the connection, not progress: the idle limit counts from the last data line.
        long idleNanos = settings.timeouts().idle().toNanos();
        long[] lastData = {System.nanoTime()};
        SseDataReader events = new SseDataReader(() -> {
            String line = response.nextLine();
            if (line != null && line.startsWith("data:")) {
                lastData[0] = System.nanoTime();
            } else if (line != null && System.nanoTime() - lastData[0] > idleNanos) {
                throw new ProviderException("provider_timeout", "The provider sent only keep-alives for "
                        + settings.timeouts().idle().toSeconds() + " s: no data");
            }
            return line;
        });
        String data;
        while ((data = events.next()) != null) {
            if (!parser.accept(data)) {
                break;
            }
        }
        if (!parser.sawDone()) {
            throw new ProviderException("provider_stream_truncated",
                    "The provider stream ended without [DONE]: the answer is incomplete");
        }
        return new ModelReply(parser.replay(), parser.usage());
    }

    private HttpRequest request(byte[] body) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(endpoint)
                .header("Content-Type", "application/json")
                .header("Accept", "text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if ("http".equalsIgnoreCase(endpoint.getScheme())) {
            builder.version(HttpClient.Version.HTTP_1_1);
        }
        if (settings.apiKey() != null && !settings.apiKey().isBlank()) {
            builder.header("Authorization", "Bearer " + settings.apiKey());
        }
        return builder.build();
    }

    /** The provider's message from an error body: {@code {"error":{"message":…}}}, {@code {"error":"…"}}, or the text itself. */
    static String errorMessage(String body) {
        String text = body.strip();
        try {
            JsonNode json = Json.parse(text);
            if (json != null && json.has("error")) {
                return OpenAiStreamParser.errorMessage(json.get("error"));
            }
            String message = Json.text(json, "message");
            if (message != null) {
                return message;
            }
        } catch (Exception notJson) {
            // fall through to the text itself
        }
        if (text.isEmpty()) {
            return "(no message)";
        }
        return text.length() > 500 ? text.substring(0, 500) + "…" : text;
    }

    /** Waits before a retry; a stop ends the wait at once. */
    private static void pause(Duration delay, Cancellation cancellation) throws ProviderException {
        CountDownLatch stopped = new CountDownLatch(1);
        try (AutoCloseable ignored = cancellation.onCancel(stopped::countDown)) {
            stopped.await(delay.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception impossible) {
            throw new IllegalStateException(impossible);
        }
        if (cancellation.isCancelled() || Thread.currentThread().isInterrupted()) {
            throw new ProviderException("cancelled", "the run was stopped");
        }
    }
}
