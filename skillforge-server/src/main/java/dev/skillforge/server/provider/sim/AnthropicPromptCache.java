package dev.skillforge.server.provider.sim;

import dev.skillforge.server.cache.CacheRule;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Anthropic's prompt cache as its documentation describes it, on the simulation's own clock: a prompt is a
 * sequence of blocks (system, then each message's content blocks); a cache entry is written at a breakpoint, for
 * the prefix up to and including that block, only when that prefix holds at least the model's minimum
 * ({@link CacheRule#anthropicMinimum}); a breakpoint finds an entry by looking back over at most
 * {@value #LOOKBACK_BLOCKS} block positions (itself included); an entry lives for its TTL (5 minutes or an hour)
 * from its last use, each hit renewing it. Reads and writes are reported apart: cache read = the longest prefix
 * found, cache write = what the last cacheable breakpoint adds beyond it, plain input = the rest. Entries are kept
 * per model, as Anthropic keeps them.
 */
final class AnthropicPromptCache {

    static final int LOOKBACK_BLOCKS = 20;
    private static final int MAX_ENTRIES = 4096;

    /** A block of the prompt: its tokens, and the digest of the prompt up to and including it. */
    record Block(int tokens, String prefixDigest) {
    }

    /** A breakpoint: the index of the block it marks, and how long what it writes is kept. */
    record Breakpoint(int block, Duration ttl) {
    }

    /** What the cache made of one prompt, in tokens. */
    record Outcome(long read, long written, long writtenForAnHour, long plain) {
    }

    private record Entry(Duration ttl, Instant expires) {
    }

    private final InstantSource clock;
    private final Map<String, Entry> entries = new HashMap<>();

    AnthropicPromptCache(InstantSource clock) {
        this.clock = clock;
    }

    /** Looks the prompt up at each breakpoint, renews what it read, writes at each cacheable breakpoint. */
    synchronized Outcome lookUpAndStore(String model, List<Block> blocks, List<Breakpoint> breakpoints) {
        Instant now = clock.instant();
        entries.values().removeIf(entry -> !entry.expires().isAfter(now));
        int minimum = CacheRule.anthropicMinimum(model);
        long[] upTo = new long[blocks.size()];
        long total = 0;
        for (int i = 0; i < blocks.size(); i++) {
            total += blocks.get(i).tokens();
            upTo[i] = total;
        }
        long read = 0;
        for (Breakpoint breakpoint : breakpoints) {
            for (int i = breakpoint.block(); i >= Math.max(0, breakpoint.block() - LOOKBACK_BLOCKS + 1); i--) {
                String key = key(model, blocks.get(i));
                Entry hit = entries.get(key);
                if (hit != null) {
                    entries.put(key, new Entry(hit.ttl(), now.plus(hit.ttl())));
                    read = Math.max(read, upTo[i]);
                    break;
                }
            }
        }
        long writtenUpTo = read;
        long forAnHour = 0;
        for (Breakpoint breakpoint : breakpoints) {
            long prefix = upTo[breakpoint.block()];
            if (prefix < minimum) {
                continue;
            }
            entries.put(key(model, blocks.get(breakpoint.block())), new Entry(breakpoint.ttl(), now.plus(breakpoint.ttl())));
            if (prefix > writtenUpTo) {
                if (breakpoint.ttl().compareTo(Duration.ofMinutes(5)) > 0) {
                    forAnHour += prefix - writtenUpTo;
                }
                writtenUpTo = prefix;
            }
        }
        trim();
        return new Outcome(read, writtenUpTo - read, forAnHour, total - writtenUpTo);
    }

    private static String key(String model, Block block) {
        return model + "\u0000" + block.prefixDigest();
    }

    /** Bounded: the entries closest to expiry go first. */
    private void trim() {
        if (entries.size() <= MAX_ENTRIES) {
            return;
        }
        Map.Entry<?, ?>[] byExpiry = entries.entrySet().toArray(Map.Entry[]::new);
        Arrays.sort(byExpiry, (a, b) -> ((Entry) a.getValue()).expires().compareTo(((Entry) b.getValue()).expires()));
        for (int i = 0; i < byExpiry.length - MAX_ENTRIES; i++) {
            entries.remove(byExpiry[i].getKey());
        }
    }
}
