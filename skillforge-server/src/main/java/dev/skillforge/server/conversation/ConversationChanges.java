package dev.skillforge.server.conversation;

import dev.skillforge.server.store.ConversationRecord;

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
 * second tab sees a turn another one started and follows it. A listener hears only of its own person's
 * conversations. Only this instance's changes: pages of several instances behind one balancer see the
 * others' on their next reload.
 */
public final class ConversationChanges implements AutoCloseable {

    /** What happened: {@code created}, {@code renamed}, {@code deleted}, {@code running} (a turn started), {@code ended}. */
    public record Change(String change, String id) {
    }

    /** A change queue per listener; a slow listener's queue is capped, and then it misses changes (it reloads on the next). */
    private static final int MAX_QUEUED = 256;
    private static final Change END = new Change("end", "");

    private final List<Subscription> listeners = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    void publish(String change, ConversationRecord conversation) {
        if (closed) {
            return;
        }
        Change event = new Change(change, conversation.id());
        for (Subscription listener : listeners) {
            if (listener.owner.equals(conversation.owner())) {
                listener.queue.offer(event); // false when full: that listener misses it
            }
        }
    }

    /** Listens, from now on, to what happens to {@code owner}'s conversations, until the subscription or this is closed. */
    public Subscription subscribe(String owner) {
        Subscription subscription = new Subscription(owner, new LinkedBlockingQueue<>(MAX_QUEUED));
        listeners.add(subscription);
        if (closed) {
            subscription.queue.offer(END);
        }
        return subscription;
    }

    /** Ends every subscription (the server stops): their streams end at once instead of at their next ping. */
    @Override
    public void close() {
        closed = true;
        for (Subscription listener : listeners) {
            listener.queue.clear();
            listener.queue.offer(END);
        }
    }

    public final class Subscription implements AutoCloseable {
        private final String owner;
        private final BlockingQueue<Change> queue;
        private boolean ended;

        private Subscription(String owner, BlockingQueue<Change> queue) {
            this.owner = owner;
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
            listeners.remove(this);
        }
    }
}
