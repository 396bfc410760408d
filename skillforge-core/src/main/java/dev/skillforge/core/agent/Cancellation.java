package dev.skillforge.core.agent;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A one-way switch that stops a run. Whoever blocks on I/O for the run (a provider stream, a
 * command) registers an action that unblocks it, so a stop takes effect at once rather than at the
 * next poll.
 */
public final class Cancellation {

    private final List<Runnable> actions = new CopyOnWriteArrayList<>();
    private volatile String reason;

    /** Cancels (once; later calls do nothing) and runs the registered actions. */
    public void cancel(String why) {
        synchronized (this) {
            if (reason != null) {
                return;
            }
            reason = why;
        }
        for (Runnable action : actions) {
            action.run();
        }
    }

    /** Runs an action at most once, and never lets one failing action keep the others from running. */
    private static Runnable once(Runnable action) {
        AtomicBoolean ran = new AtomicBoolean();
        return () -> {
            if (ran.compareAndSet(false, true)) {
                try {
                    action.run();
                } catch (RuntimeException ignored) {
                    // an abort that fails has nothing left to abort
                }
            }
        };
    }

    public boolean isCancelled() {
        return reason != null;
    }

    /** Why it was cancelled, or {@code null}. */
    public String reason() {
        return reason;
    }

    /**
     * Runs {@code action} on cancel, or right away if already cancelled. Close the returned handle
     * when the guarded work is over.
     */
    public AutoCloseable onCancel(Runnable action) {
        Runnable guarded = once(action);
        actions.add(guarded);
        if (isCancelled()) {
            guarded.run(); // cancel() may have run before the add, or may run it too: once() keeps it single
        }
        return () -> actions.remove(guarded);
    }
}
