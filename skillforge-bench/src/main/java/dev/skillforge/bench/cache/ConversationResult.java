package dev.skillforge.bench.cache;

import dev.skillforge.server.cache.CacheRule;

import java.util.ArrayList;
import java.util.List;

/**
 * What one scripted conversation measured: the prompt and cached tokens of each model call that was
 * answered (in order), the calls that failed, the cache breaks the server's prefix guard counted,
 * and the context cuts the server made.
 */
record ConversationResult(ScriptedConversation conversation, List<Call> calls, int failed, long breaks, int cuts) {

    /** One answered model call's usage. */
    record Call(long prompt, long cached) {
    }

    ConversationResult {
        calls = List.copyOf(calls);
    }

    long prompt() {
        return calls.stream().mapToLong(Call::prompt).sum();
    }

    long cached() {
        return calls.stream().mapToLong(Call::cached).sum();
    }

    /** The limit, {@link #cacheableByCall} added up. */
    long cacheable(CacheRule rule) {
        return cacheableByCall(rule).stream().mapToLong(Long::longValue).sum();
    }

    /**
     * The limit, call by call: what {@code rule} lets a history that only grows have cached. For each
     * call after the first, the previous answered call's prompt (all of it, or as much as the new,
     * shorter one holds) is a prefix the provider has seen: {@code rule(min(previous, current), current)}.
     */
    List<Long> cacheableByCall(CacheRule rule) {
        List<Long> cacheable = new ArrayList<>();
        for (int k = 0; k < calls.size(); k++) {
            long current = calls.get(k).prompt();
            cacheable.add(k == 0 ? 0 : rule.cachedTokens((int) Math.min(calls.get(k - 1).prompt(), current), (int) current));
        }
        return cacheable;
    }
}
