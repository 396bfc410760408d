package dev.skillforge.testkit;

import dev.skillforge.server.store.ConversationStore;
import dev.skillforge.server.store.StoreException;
import java.time.Duration;
import java.util.Objects;

/**
 * A real store made slow: every call waits a fixed time, then goes to the store it wraps. For the
 * benchmark and for tests that prove database latency stays off the request path. Not for
 * production.
 */
public final class LatencyInjectingStore extends ForwardingStore {

    private final Duration latency;

    /** Wraps {@code delegate}; {@link #close()} closes it (without waiting). */
    public LatencyInjectingStore(ConversationStore delegate, Duration latency) {
        super(delegate);
        this.latency = Objects.requireNonNull(latency, "latency");
        if (latency.isNegative()) {
            throw new IllegalArgumentException("latency must not be negative, was " + latency);
        }
    }

    public Duration latency() {
        return latency;
    }

    /** @throws StoreException if interrupted while waiting (the thread's flag is set again) */
    @Override
    protected void beforeCall() {
        try {
            Thread.sleep(latency);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException("Interrupted while waiting out the injected latency", e);
        }
    }

    @Override
    public String toString() {
        return "LatencyInjectingStore[" + latency.toMillis() + " ms, " + delegate + "]";
    }
}
