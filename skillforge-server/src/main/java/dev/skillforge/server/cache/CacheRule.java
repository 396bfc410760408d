package dev.skillforge.server.cache;

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

    /**
     * A cache kept in whole units of {@code unitTokens}: the hit is the shared prefix rounded down to
     * a whole number of units, so a prefix shorter than one unit is not cached at all.
     */
    static CacheRule wholeUnits(int unitTokens) {
        if (unitTokens < 1) {
            throw new IllegalArgumentException("a cache unit must hold at least one token, was " + unitTokens);
        }
        return (shared, prompt) -> (long) (Math.min(shared, prompt) / unitTokens) * unitTokens;
    }

    /**
     * DeepSeek's context caching on disk: "The cache system uses 64 tokens as a storage unit; content
     * less than 64 tokens will not be cached" (api-docs.deepseek.com, guides/kv_cache, Additional
     * Notes; first in the announcement of 2 August 2024, news/news0802), and only a prefix from the
     * first token on is a hit.
     */
    CacheRule DEEPSEEK = wholeUnits(64);

    /**
     * Gemini's implicit caching: prompts of at least {@code minimum} tokens; the whole shared prefix
     * is reported as {@code cachedContentTokenCount} (real Gemini reports somewhat less: 3765 of an
     * identical 4612-token prompt in a recorded stream, by rules it does not publish).
     */
    static CacheRule geminiImplicit(int minimum) {
        return (shared, prompt) -> prompt < minimum || shared < minimum ? 0 : shared;
    }

    /** Gemini Flash models: at least 1024 prompt tokens (Google's documented minimum for implicit caching). */
    CacheRule GEMINI_FLASH = geminiImplicit(1024);

    /** Gemini Pro models: at least 4096 prompt tokens. */
    CacheRule GEMINI_PRO = geminiImplicit(4096);

    /** The rule for a model name: Pro's when the name says {@code pro}, else Flash's (the simulated model's too). */
    static CacheRule forGeminiModel(String model) {
        return model.toLowerCase(java.util.Locale.ROOT).contains("pro") ? GEMINI_PRO : GEMINI_FLASH;
    }
}
