package dev.skillforge.server;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * What a start has opened so far, so that a start failing halfway closes it again, newest first: no
 * writer thread, lease thread, lock file or connection pool outlives a failed start.
 */
final class Opened {

    private final Deque<AutoCloseable> resources = new ArrayDeque<>();
    private boolean kept;

    /** Remembers {@code resource} (to close if the start fails) and returns it. */
    <T extends AutoCloseable> T add(T resource) {
        resources.push(resource);
        return resource;
    }

    /** The start succeeded: from here on the resources belong to what was started. */
    void keep() {
        kept = true;
    }

    /** Closes everything opened, newest first; failures to close are added to {@code failure}. */
    void closeAll(Throwable failure) {
        if (kept) {
            return;
        }
        while (!resources.isEmpty()) {
            try {
                resources.pop().close();
            } catch (Exception e) {
                failure.addSuppressed(e);
            }
        }
    }
}
