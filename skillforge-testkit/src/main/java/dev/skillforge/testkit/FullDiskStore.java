package dev.skillforge.testkit;

import dev.skillforge.server.store.ConversationStore;
import dev.skillforge.server.store.Lease;
import dev.skillforge.server.store.StorageFailureException;
import dev.skillforge.server.store.Write;

import java.util.List;
import java.util.Set;

/**
 * A real store whose disk can fill up: while {@linkplain #setFull full}, what needs room fails as SQLite and
 * PostgreSQL fail on a full disk ({@link StorageFailureException}) and reaches nothing (batches of writes, taking and
 * giving back leases); reads, and lease renewals, which change rows in place or none, still go through, as they do
 * on a full disk. For tests of what a full disk does to a server. Not for production.
 */
public final class FullDiskStore extends ForwardingStore {

    private volatile boolean full;

    /** Wraps {@code delegate}, with room; {@link #close()} closes it. */
    public FullDiskStore(ConversationStore delegate) {
        super(delegate);
    }

    /** Fills the disk ({@code true}) or makes room again ({@code false}); effective for the next call. */
    public void setFull(boolean full) {
        this.full = full;
    }

    @Override
    protected void beforeCall() {
    }

    @Override
    public Set<Fenced> apply(List<Write> batch) {
        needRoom("apply " + batch.size() + " writes");
        return super.apply(batch);
    }

    @Override
    public Lease acquireLease(String conversationId, String owner, long nowMillis, long ttlMillis) {
        needRoom("acquire the lease of conversation " + conversationId);
        return super.acquireLease(conversationId, owner, nowMillis, ttlMillis);
    }

    @Override
    public void releaseLease(String conversationId, String owner) {
        needRoom("release the lease of conversation " + conversationId);
        super.releaseLease(conversationId, owner);
    }

    private void needRoom(String what) {
        if (full) {
            throw new StorageFailureException("Could not " + what + " on the simulated full disk: [SQLITE_FULL] Insertion failed"
                    + " because database is full (database or disk is full)", null);
        }
    }

    @Override
    public String toString() {
        return "FullDiskStore[" + (full ? "full" : "with room") + ", " + delegate + "]";
    }
}
