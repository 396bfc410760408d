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

    /** A call outside a turn's loop (exports, tests): iteration 0. */
    public ModelCall(String systemPrompt, List<Entry> entries, String cacheKey) {
        this(systemPrompt, entries, cacheKey, 0);
    }
}
