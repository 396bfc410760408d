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

    /**
     * Anthropic's prompt cache as a conversation that only grows meets it: with the breakpoint on the last block
     * (automatic caching, or an explicit marker on the newest message), each request writes its whole prompt, and
     * the next one reads all of it back, since its breakpoint looks back over at most 20 blocks and SkillForge adds
     * two to four a call. Nothing is cached below the model's minimum ({@link #anthropicMinimum}).
     */
    static CacheRule anthropic(int minimum) {
        return (shared, prompt) -> prompt < minimum || shared < minimum ? 0 : shared;
    }

    /** The rule for an Anthropic model name, by its minimum. */
    static CacheRule forAnthropicModel(String model) {
        return anthropic(anthropicMinimum(model));
    }

    /**
     * The shortest prompt prefix Anthropic caches for a model, as its prompt-caching page listed the minimums
     * (platform.claude.com/docs/en/build-with-claude/prompt-caching, as quoted in anthropic-sdk-python issue 1194):
     * 4096 tokens for Claude Opus 4.6 and 4.5 and Haiku 4.5, 2048 for Haiku 3.5 and 3, 1024 for the others named
     * there (Sonnet 4.6, 4.5, 4, Opus 4.1, 4, Sonnet 3.7), and here for any other name, the simulated model's
     * included. Minimums of the 5.x models could not be read on Anthropic's page here.
     */
    static int anthropicMinimum(String model) {
        String name = model.toLowerCase(java.util.Locale.ROOT);
        if (name.contains("opus-4-6") || name.contains("opus-4-5") || name.contains("haiku-4-5")) {
            return 4096;
        }
        if (name.contains("3-5-haiku") || name.contains("3-haiku")) {
            return 2048;
        }
        return 1024;
    }
}
