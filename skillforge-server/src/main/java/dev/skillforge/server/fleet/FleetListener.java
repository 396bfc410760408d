package dev.skillforge.server.fleet;

import dev.skillforge.server.store.Notifications;
import dev.skillforge.server.store.StoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;

/**
 * The one database session an instance listens on, kept open on its own thread: when it breaks (the database
 * restarted, the session was ended, the network failed, which only a check every {@link #CHECK} shows) it is
 * opened again, after a pause that doubles from {@link #FIRST_PAUSE} to {@link #LONGEST_PAUSE} while the database
 * refuses. The handler hears each message, that the session was lost, and when it listens (again): what was
 * published in between reached nobody, and the handler asks for it again.
 */
final class FleetListener implements AutoCloseable {

    /** What the listening thread tells; each call on that thread, none may block for long. */
    interface Handler {
        void message(Notifications.Notification notification);

        /** The session broke: messages published from now on are lost until {@link #listening()}. */
        void lost();

        /** The session listens, for the first time or again. */
        void listening();
    }

    private static final Logger log = LoggerFactory.getLogger(FleetListener.class);

    private static final Duration POLL = Duration.ofMillis(250);
    private static final Duration CHECK = Duration.ofSeconds(5);
    private static final Duration FIRST_PAUSE = Duration.ofMillis(100);
    private static final Duration LONGEST_PAUSE = Duration.ofSeconds(2);

    private final Notifications notifications;
    private final List<String> channels;
    private final Handler handler;
    private final Thread thread;
    private volatile boolean closed;

    /** Starts listening on {@code channels}. */
    FleetListener(Notifications notifications, List<String> channels, Handler handler) {
        this.notifications = notifications;
        this.channels = List.copyOf(channels);
        this.handler = handler;
        this.thread = Thread.ofPlatform().daemon().name("fleet-listener").start(this::run);
    }

    private void run() {
        Duration pause = FIRST_PAUSE;
        long brokenSince = 0;
        boolean broken = false;
        while (!closed) {
            try (Notifications.Subscription subscription = notifications.subscribe(channels)) {
                if (broken) {
                    log.info("fleet: listening to the other instances again after {} ms", (System.nanoTime() - brokenSince) / 1_000_000);
                    broken = false;
                    pause = FIRST_PAUSE;
                }
                handler.listening();
                long nextCheck = System.nanoTime() + CHECK.toNanos();
                while (!closed) {
                    subscription.poll(POLL).forEach(this::deliver);
                    if (System.nanoTime() - nextCheck >= 0) {
                        subscription.check(CHECK);
                        nextCheck = System.nanoTime() + CHECK.toNanos();
                    }
                }
            } catch (StoreException e) {
                if (closed) {
                    return;
                }
                if (broken) {
                    log.debug("fleet: still not listening: {}", e.getMessage());
                } else {
                    broken = true;
                    brokenSince = System.nanoTime();
                    log.warn("fleet: not listening to the other instances, trying again: {}", e.getMessage());
                    handler.lost();
                }
                if (!pause(pause)) {
                    return;
                }
                pause = pause.multipliedBy(2).compareTo(LONGEST_PAUSE) > 0 ? LONGEST_PAUSE : pause.multipliedBy(2);
            }
        }
    }

    private void deliver(Notifications.Notification notification) {
        try {
            handler.message(notification);
        } catch (RuntimeException e) {
            log.error("fleet: a message on {} could not be handled", notification.channel(), e);
        }
    }

    /** False when closed meanwhile. */
    private boolean pause(Duration duration) {
        try {
            Thread.sleep(duration);
            return !closed;
        } catch (InterruptedException e) {
            return false;
        }
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
        try {
            thread.join(POLL.multipliedBy(4));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
