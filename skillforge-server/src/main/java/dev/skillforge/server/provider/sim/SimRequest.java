package dev.skillforge.server.provider.sim;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A request the simulated provider received, for tests to inspect: the body exactly as it came, its
 * parsed messages, and what the cache made of it.
 */
public record SimRequest(String body, JsonNode json, String cacheKey, long promptTokens, long cachedTokens) {

    public JsonNode messages() {
        return json.get("messages");
    }
}
