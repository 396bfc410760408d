package dev.skillforge.server.conversation;

import java.time.Duration;
import java.util.Objects;

/**
 * Every wait, period and bound of the conversation layer, in one place (settings, see
 * {@code Settings}): how long a lease lasts and how often it is renewed, how long a request waits
 * for another instance or for the background writer, and how many idle conversations stay in memory
 * for how long.
 *
 * @param leaseTtl      how long a lease lasts unless renewed; also how long a dead instance's conversations
 *                      wait before another instance may take them ({@code FORGE_LEASE_SECONDS})
 * @param leaseRenewal  how often the instance looks for hand-over requests and lets idle conversations go; well under
 *                      {@code leaseTtl} (the leases themselves are extended every third of {@code leaseTtl})
 * @param handoverWait  how long a request waits for another instance to hand a conversation over
 *                      before it answers "busy" ({@code FORGE_HANDOVER_WAIT_MILLIS})
 * @param idleEviction  a conversation not used for this long leaves memory and gives its lease back
 *                      ({@code FORGE_HOT_IDLE_SECONDS})
 * @param maxHot        the most conversations held in memory; past it the least recently used idle ones leave
 *                      ({@code FORGE_MAX_HOT_CONVERSATIONS})
 * @param storeWait     how long a request waits for the background writer (a new conversation reaching the
 *                      database, a cold read seeing this instance's own writes) ({@code FORGE_STORE_WAIT_MILLIS})
 * @param handoverFlush how long letting a conversation go waits for its writes before giving its lease back
 * @param shutdownFlush how long a shutdown, and recovery at start, wait for the writer
 *                      ({@code FORGE_SHUTDOWN_FLUSH_SECONDS})
 * @param shutdownGrace how long a stopping instance (SIGTERM) lets its running turns finish before it stops
 *                      them ({@code FORGE_SHUTDOWN_GRACE_SECONDS})
 */
public record ConversationTimings(Duration leaseTtl, Duration leaseRenewal, Duration handoverWait, Duration idleEviction, int maxHot,
                                  Duration storeWait, Duration handoverFlush, Duration shutdownFlush, Duration shutdownGrace) {

    public static final ConversationTimings DEFAULTS = new ConversationTimings(Duration.ofSeconds(15), Duration.ofMillis(200),
            Duration.ofSeconds(2), Duration.ofMinutes(10), 1000, Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(10),
            Duration.ofSeconds(60));

    public ConversationTimings {
        for (Duration d : new Duration[] {leaseTtl, leaseRenewal, handoverWait, idleEviction, storeWait, handoverFlush, shutdownFlush, shutdownGrace}) {
            if (Objects.requireNonNull(d, "duration").isNegative()) {
                throw new IllegalArgumentException("conversation timings must not be negative: " + d);
            }
        }
        if (leaseRenewal.isZero() || leaseRenewal.compareTo(leaseTtl) >= 0) {
            throw new IllegalArgumentException("the lease renewal period (" + leaseRenewal + ") must be above 0 and below the lease time ("
                    + leaseTtl + ")");
        }
        if (maxHot < 1) {
            throw new IllegalArgumentException("at least one conversation must fit in memory, was " + maxHot);
        }
    }
}
