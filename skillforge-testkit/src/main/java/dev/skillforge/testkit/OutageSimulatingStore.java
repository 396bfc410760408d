package dev.skillforge.testkit;

import dev.skillforge.server.store.ConversationStore;
import dev.skillforge.server.store.StoreException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A real store with a switch that takes it down: while {@linkplain #setDown down}, every call fails
 * with a {@link StoreException} as an unreachable database would, and reaches nothing; once up
 * again, calls go to the wrapped store as before. For tests of the writer's retries and for
 * outage drills. Not for production.
 */
public final class OutageSimulatingStore extends ForwardingStore {

    private volatile boolean down;
    private final AtomicLong refusedCalls = new AtomicLong();

    /** Wraps {@code delegate}, up; {@link #close()} closes it, down or not. */
    public OutageSimulatingStore(ConversationStore delegate) {
        super(delegate);
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

    @Override
    protected void beforeCall() {
        if (down) {
            refusedCalls.incrementAndGet();
            throw new StoreException("Simulated outage: the conversation store is down", null);
        }
    }

    @Override
    public String toString() {
        return "OutageSimulatingStore[" + (down ? "down" : "up") + ", " + delegate + "]";
    }
}
