package dev.skillforge.server.store;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A real store made slow: every call waits a fixed time, then goes to the store it wraps. For the
 * benchmark and for tests that prove database latency stays off the request path. Not for
 * production.
 */
public final class LatencyInjectingStore implements ConversationStore {

    private final ConversationStore delegate;
    private final Duration latency;

    /** Wraps {@code delegate}; {@link #close()} closes it (without waiting). */
    public LatencyInjectingStore(ConversationStore delegate, Duration latency) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.latency = Objects.requireNonNull(latency, "latency");
        if (latency.isNegative()) {
            throw new IllegalArgumentException("latency must not be negative, was " + latency);
        }
    }

    public Duration latency() {
        return latency;
    }

    /** @throws StoreException if interrupted while waiting (the thread's flag is set again) */
    private void delay() {
        try {
            Thread.sleep(latency);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException("Interrupted while waiting out the injected latency", e);
        }
    }

    @Override
    public void apply(List<Write> batch) {
        delay();
        delegate.apply(batch);
    }

    @Override
    public Optional<ConversationRecord> conversation(String id) {
        delay();
        return delegate.conversation(id);
    }

    @Override
    public List<ConversationRecord> conversations(int limit, int offset) {
        delay();
        return delegate.conversations(limit, offset);
    }

    @Override
    public long count() {
        delay();
        return delegate.count();
    }

    @Override
    public List<StoredEntry> entries(String conversationId) {
        delay();
        return delegate.entries(conversationId);
    }

    @Override
    public List<TurnRecord> turns(String conversationId) {
        delay();
        return delegate.turns(conversationId);
    }

    @Override
    public Lease acquireLease(String conversationId, String owner, long nowMillis, long ttlMillis) {
        delay();
        return delegate.acquireLease(conversationId, owner, nowMillis, ttlMillis);
    }

    @Override
    public Renewal renewLeases(String owner, Set<String> conversationIds, long nowMillis, long ttlMillis) {
        delay();
        return delegate.renewLeases(owner, conversationIds, nowMillis, ttlMillis);
    }

    @Override
    public Set<String> leasesHeldBy(String owner) {
        delay();
        return delegate.leasesHeldBy(owner);
    }

    @Override
    public void releaseLease(String conversationId, String owner) {
        delay();
        delegate.releaseLease(conversationId, owner);
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public String toString() {
        return "LatencyInjectingStore[" + latency.toMillis() + " ms, " + delegate + "]";
    }
}
