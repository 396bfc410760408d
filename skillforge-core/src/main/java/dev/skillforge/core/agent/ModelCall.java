package dev.skillforge.core.agent;

import dev.skillforge.core.transcript.Entry;

import java.util.List;
import java.util.Objects;

/**
 * One request to the model: the fixed system prompt, the transcript so far (ending with a user or
 * tool entry) and a key that stays the same for every call of one conversation, for providers that
 * route their prompt cache by key.
 */
public record ModelCall(String systemPrompt, List<Entry> entries, String cacheKey) {
    public ModelCall {
        Objects.requireNonNull(systemPrompt, "systemPrompt");
        entries = List.copyOf(entries);
        Objects.requireNonNull(cacheKey, "cacheKey");
    }
}
