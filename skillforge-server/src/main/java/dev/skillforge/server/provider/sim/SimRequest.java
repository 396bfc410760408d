package dev.skillforge.server.provider.sim;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Map;

/**
 * A request the simulated provider received, for tests to inspect: the body exactly as it came, its
 * parsed messages, and what the cache made of it (tokens read from it, and written to it where the format
 * reports writes); which wire format it came in ({@code openai}, {@code gemini} or {@code anthropic}), the
 * path with its query, and the headers (names in lower case).
 */
public record SimRequest(String body, JsonNode json, String cacheKey, long promptTokens, long cachedTokens,
                         String format, String path, Map<String, String> headers, long cacheWriteTokens) {

    public SimRequest {
        headers = Map.copyOf(headers);
    }

    /** A request in a format that reports no cache writes. */
    public SimRequest(String body, JsonNode json, String cacheKey, long promptTokens, long cachedTokens,
                      String format, String path, Map<String, String> headers) {
        this(body, json, cacheKey, promptTokens, cachedTokens, format, path, headers, 0);
    }

    public SimRequest(String body, JsonNode json, String cacheKey, long promptTokens, long cachedTokens) {
        this(body, json, cacheKey, promptTokens, cachedTokens, "openai", null, Map.of());
    }

    /** OpenAI's and Anthropic's {@code messages}. */
    public JsonNode messages() {
        return json.get("messages");
    }

    /** Gemini's {@code contents}. */
    public JsonNode contents() {
        return json.get("contents");
    }

    /** The conversation in the request's own format: Gemini's {@code contents}, else (OpenAI, Anthropic) {@code messages}. */
    public JsonNode conversation() {
        return GeminiSimWire.FORMAT.equals(format) ? contents() : messages();
    }
}
