package dev.skillforge.server.provider.sim;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Map;

/**
 * A request the simulated provider received, for tests to inspect: the body exactly as it came, its
 * parsed messages, and what the cache made of it; which wire format it came in ({@code openai} or
 * {@code gemini}), the path with its query, and the headers (names in lower case).
 */
public record SimRequest(String body, JsonNode json, String cacheKey, long promptTokens, long cachedTokens,
                         String format, String path, Map<String, String> headers) {

    public SimRequest {
        headers = Map.copyOf(headers);
    }

    public SimRequest(String body, JsonNode json, String cacheKey, long promptTokens, long cachedTokens) {
        this(body, json, cacheKey, promptTokens, cachedTokens, "openai", null, Map.of());
    }

    /** OpenAI's {@code messages}. */
    public JsonNode messages() {
        return json.get("messages");
    }

    /** Gemini's {@code contents}. */
    public JsonNode contents() {
        return json.get("contents");
    }

    /** The conversation in the request's own format: Gemini's {@code contents} or OpenAI's {@code messages}. */
    public JsonNode conversation() {
        return GeminiSimWire.FORMAT.equals(format) ? contents() : messages();
    }
}
