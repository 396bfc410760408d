package dev.skillforge.core.agent;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

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
        actions.add(action);
        if (isCancelled()) {
            action.run();
        }
        return () -> actions.remove(action);
    }
}
