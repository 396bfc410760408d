package dev.skillforge.core.agent;

import dev.skillforge.core.transcript.Entry;

import java.util.List;
import java.util.Objects;

/**
 * One request to the model: the fixed system prompt, what the model sees of the transcript (ending
 * with a user or tool entry; after a context cut, starting with its note), a key that stays the same
 * for every call of one conversation, for providers that route their prompt cache by key, and the
 * 0-based iteration of the turn the call is for (for logs).
 */
public record ModelCall(String systemPrompt, List<Entry> entries, String cacheKey, int iteration) {
    public ModelCall {
        Objects.requireNonNull(systemPrompt, "systemPrompt");
        entries = List.copyOf(entries);
        Objects.requireNonNull(cacheKey, "cacheKey");
    }

    /**
     * The key a provider routes its prompt cache by: the cache key up to its first {@code /}. A fork of a
     * conversation (an edited message) is keyed {@code ROOT/FORK}: its requests are checked on their own
     * but routed where the prefix it shares with its root is cached.
     */
    public String routingKey() {
        int slash = cacheKey.indexOf('/');
        return slash < 0 ? cacheKey : cacheKey.substring(0, slash);
    }

    /** A call outside a turn's loop (exports, tests): iteration 0. */
    public ModelCall(String systemPrompt, List<Entry> entries, String cacheKey) {
        this(systemPrompt, entries, cacheKey, 0);
    }
}
