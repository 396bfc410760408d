package dev.skillforge.server.provider.sim;

/**
 * A provider's documented prompt-cache rule: how many prompt tokens it reports as cached, given how
 * many leading tokens the prompt shares with one it has seen.
 */
@FunctionalInterface
public interface CacheRule {

    long cachedTokens(int sharedPrefixTokens, int promptTokens);

    /**
     * OpenAI: prompts of at least 1024 tokens; hits in 128-token steps from 1024
     * ("cached_tokens" of 4480 = 1024 + 27 × 128 in a recorded stream).
     */
    CacheRule OPENAI = (shared, prompt) -> {
        if (prompt < 1024 || shared < 1024) {
            return 0;
        }
        return 1024 + (long) ((shared - 1024) / 128) * 128;
    };
}
