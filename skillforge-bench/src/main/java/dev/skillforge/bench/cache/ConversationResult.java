package dev.skillforge.bench.cache;

import dev.skillforge.core.agent.Usage;
import dev.skillforge.server.cache.CacheRule;
import dev.skillforge.server.price.TokenPrices;

import java.util.ArrayList;
import java.util.List;

/**
 * What one scripted conversation measured: the usage of each model call that was answered (in order),
 * the calls that failed, the cache breaks the server's prefix guard counted, and the context cuts the
 * server made.
 */
record ConversationResult(ScriptedConversation conversation, List<Call> calls, int failed, long breaks, int cuts) {

    /** One answered model call's usage: prompt tokens, those read from the cache, those written to it ({@code null}: not reported), output. */
    record Call(long prompt, long cached, Long written, long output) {

        Usage usage() {
            return new Usage(prompt, output, cached, written);
        }
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

    /** What the answered calls cost at {@code prices}, in dollars; NaN when a call's figures do not say. */
    double cost(TokenPrices prices) {
        double dollars = 0;
        for (Call call : calls) {
            dollars += prices.cost(call.usage()).orElse(Double.NaN);
        }
        return dollars;
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
