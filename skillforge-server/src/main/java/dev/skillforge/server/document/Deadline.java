package dev.skillforge.server.document;

import java.time.Duration;
import java.time.InstantSource;

/**
 * When one extraction must stop: once its time is up, or as soon as whoever asked for it has gone. The work checks
 * it as it goes (every PDF operator, every few KB decoded or parsed, every HTML element and node), so a hostile file
 * is stopped while it is read, not between its pages.
 */
final class Deadline {

    private final InstantSource clock;
    private final Duration limit;
    private final long endMillis;
    private volatile String stopped;

    Deadline(InstantSource clock, Duration limit) {
        this.clock = clock;
        this.limit = limit;
        this.endMillis = clock.millis() + limit.toMillis();
    }

    /** Makes the next check fail: {@code why} says who went away. */
    void stop(String why) {
        stopped = why;
    }

    /** A limit as messages say it: {@code 20 s}, or {@code 150 ms} when under a second. */
    static String said(Duration limit) {
        return limit.toMillis() < 1000 ? limit.toMillis() + " ms" : limit.toSeconds() + " s";
    }

    /**
     * @param what the file being read, as messages name it ({@code 'notes.pdf'})
     * @throws DocumentException STOPPED once {@link #stop} was called, TOO_LARGE once the time is up
     */
    void check(String what) {
        if (stopped != null) {
            throw DocumentException.stopped(what + " was not read: " + stopped);
        }
        if (clock.millis() - endMillis > 0) {
            throw DocumentException.tooLarge(what + " took longer than " + said(limit) + " to read");
        }
    }
}
