package dev.skillforge.server.store;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A real store with a switch that takes it down: while {@linkplain #setDown down}, every call fails
 * with a {@link StoreException} as an unreachable database would, and reaches nothing; once up
 * again, calls go to the wrapped store as before. For tests of the writer's retries and for
 * outage drills. Not for production.
 */
public final class OutageSimulatingStore implements ConversationStore {

    private final ConversationStore delegate;
    private volatile boolean down;
    private final AtomicLong refusedCalls = new AtomicLong();

    /** Wraps {@code delegate}, up; {@link #close()} closes it, down or not. */
    public OutageSimulatingStore(ConversationStore delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** Takes the store down ({@code true}) or brings it back ({@code false}); effective for the next call. */
    public void setDown(boolean down) {
        this.down = down;
    }

    public boolean isDown() {
        return down;
    }

    /** How many calls failed because the store was down. */
    public long refusedCalls() {
        return refusedCalls.get();
    }

    private void check() {
        if (down) {
            refusedCalls.incrementAndGet();
            throw new StoreException("Simulated outage: the conversation store is down", null);
        }
    }

    @Override
    public void apply(List<Write> batch) {
        check();
        delegate.apply(batch);
    }

    @Override
    public Optional<ConversationRecord> conversation(String id) {
        check();
        return delegate.conversation(id);
    }

    @Override
    public List<ConversationRecord> conversations(int limit, int offset) {
        check();
        return delegate.conversations(limit, offset);
    }

    @Override
    public long count() {
        check();
        return delegate.count();
    }

    @Override
    public List<StoredEntry> entries(String conversationId) {
        check();
        return delegate.entries(conversationId);
    }

    @Override
    public List<TurnRecord> turns(String conversationId) {
        check();
        return delegate.turns(conversationId);
    }

    @Override
    public Lease acquireLease(String conversationId, String owner, long nowMillis, long ttlMillis) {
        check();
        return delegate.acquireLease(conversationId, owner, nowMillis, ttlMillis);
    }

    @Override
    public Renewal renewLeases(String owner, Set<String> conversationIds, long nowMillis, long ttlMillis) {
        check();
        return delegate.renewLeases(owner, conversationIds, nowMillis, ttlMillis);
    }

    @Override
    public Set<String> leasesHeldBy(String owner) {
        check();
        return delegate.leasesHeldBy(owner);
    }

    @Override
    public void releaseLease(String conversationId, String owner) {
        check();
        delegate.releaseLease(conversationId, owner);
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public String toString() {
        return "OutageSimulatingStore[" + (down ? "down" : "up") + ", " + delegate + "]";
    }
}
