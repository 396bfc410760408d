package dev.skillforge.server.conversation;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * What changed in the conversations this instance serves, for every open page: one stream per page
 * ({@code GET /api/conversations/changes}) tells each tab that the list or a running turn changed, so a
 * second tab sees a turn another one started and follows it. Only this instance's changes: pages of
 * several instances behind one balancer see the others' on their next reload.
 */
public final class ConversationChanges implements AutoCloseable {

    /** What happened: {@code created}, {@code renamed}, {@code deleted}, {@code running} (a turn started), {@code ended}. */
    public record Change(String change, String id) {
    }

    /** A change queue per listener; a slow listener's queue is capped, and then it misses changes (it reloads on the next). */
    private static final int MAX_QUEUED = 256;
    private static final Change END = new Change("end", "");

    private final List<BlockingQueue<Change>> listeners = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    void publish(String change, String id) {
        if (closed) {
            return;
        }
        Change event = new Change(change, id);
        for (BlockingQueue<Change> queue : listeners) {
            queue.offer(event); // false when full: that listener misses it
        }
    }

    /** Listens from now on, until the subscription or this is closed. */
    public Subscription subscribe() {
        Subscription subscription = new Subscription(new LinkedBlockingQueue<>(MAX_QUEUED));
        listeners.add(subscription.queue);
        if (closed) {
            subscription.queue.offer(END);
        }
        return subscription;
    }

    /** Ends every subscription (the server stops): their streams end at once instead of at their next ping. */
    @Override
    public void close() {
        closed = true;
        for (BlockingQueue<Change> queue : listeners) {
            queue.clear();
            queue.offer(END);
        }
    }

    public final class Subscription implements AutoCloseable {
        private final BlockingQueue<Change> queue;
        private boolean ended;

        private Subscription(BlockingQueue<Change> queue) {
            this.queue = queue;
        }

        /**
         * The next change, waiting up to {@code timeout}: empty when none came; {@link #ended()} once the
         * changes were closed.
         */
        public Optional<Change> next(Duration timeout) throws InterruptedException {
            if (ended) {
                return Optional.empty();
            }
            Change change = queue.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (change == END) {
                ended = true;
                return Optional.empty();
            }
            return Optional.ofNullable(change);
        }

        public boolean ended() {
            return ended;
        }

        @Override
        public void close() {
            listeners.remove(queue);
        }
    }
}
