package dev.skillforge.server.provider.sim;

import dev.skillforge.server.cache.CacheRule;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A real prefix cache, per cache key (OpenAI routes by {@code prompt_cache_key}): remembers the
 * last prompts it saw and reports, for a new prompt, what the cache rule makes of the longest prefix
 * it shares with any of them. Bounded: the least recently used keys are forgotten.
 */
final class PrefixCache {

    private static final int PROMPTS_PER_KEY = 8;
    private static final int MAX_KEYS = 512;

    private final CacheRule rule;
    private final Map<String, Deque<int[]>> byKey = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Deque<int[]>> eldest) {
            return size() > MAX_KEYS;
        }
    };

    PrefixCache(CacheRule rule) {
        this.rule = rule;
    }

    /** Looks {@code prompt} up, then remembers it; returns the cached token count to report. */
    synchronized long lookUpAndStore(String key, int[] prompt) {
        Deque<int[]> seen = byKey.computeIfAbsent(key, k -> new ArrayDeque<>());
        int shared = 0;
        for (int[] earlier : seen) {
            shared = Math.max(shared, TokenCounter.commonPrefix(earlier, prompt));
        }
        seen.addFirst(prompt);
        if (seen.size() > PROMPTS_PER_KEY) {
            seen.removeLast();
        }
        return rule.cachedTokens(shared, prompt.length);
    }
}
