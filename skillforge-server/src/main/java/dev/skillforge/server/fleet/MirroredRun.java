package dev.skillforge.server.fleet;

import dev.skillforge.server.conversation.RunElsewhere;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * A turn that another instance runs, as this instance receives it: the events relayed after the id it asked
 * from, kept while clients here follow it, each client reading on from its own last id ({@link RemoteRun}). One
 * per conversation, however many follow it here. Its messages come from the listening thread, on the stream it
 * asked for last; those of an older stream are dropped.
 *
 * <p>It ends with the turn ({@code end}), at once when there was nothing to follow ({@code none}), or when the
 * other instance says nothing for {@link #SILENCE} after a request was sent, while this one listens (it died, or lost
 * the database). While
 * this instance's own listening session is down, silence says nothing of the other one: the run waits, and goes
 * on from its last event once this instance listens again ({@link #resume}).
 */
final class MirroredRun {

    /** No word from the other instance for this long: it is gone (killed, or cut off from the database). */
    static final Duration SILENCE = Duration.ofSeconds(3);

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final List<RunElsewhere.Frame> frames = new ArrayList<>();
    private RelayMessages.Assembly assembly = new RelayMessages.Assembly();
    /** Events after this id were asked for. */
    private long from;
    private long stream;
    /** The request for the current stream has been sent (its answer is awaited from then on). */
    private boolean asked;
    private long askedNanos;
    /** The other instance answered the current stream with the turn (never when it said there is nothing to follow). */
    private boolean answered;
    private boolean ended;
    private boolean listening = true;
    private final LongSupplier nanoTime;
    private long lastWordNanos;
    private int followers;

    /**
     * @param from     the id events are asked after
     * @param stream   the stream they are asked on
     * @param nanoTime the time that silence is measured in, as {@link System#nanoTime()}
     */
    MirroredRun(long from, long stream, LongSupplier nanoTime) {
        this.from = from;
        this.stream = stream;
        this.nanoTime = nanoTime;
        this.lastWordNanos = nanoTime.getAsLong();
    }

    long stream() {
        lock.lock();
        try {
            return stream;
        } finally {
            lock.unlock();
        }
    }

    boolean ended() {
        lock.lock();
        try {
            return ended;
        } finally {
            lock.unlock();
        }
    }

    /** Whether a client that saw the events up to {@code afterId} can follow from here: they were asked for. */
    boolean covers(long afterId) {
        lock.lock();
        try {
            return !ended && afterId >= from;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Asks again, on a new stream, from an earlier id: what was received is dropped and comes again in order, so a
     * client further on waits until the new stream passes its last id.
     */
    void restart(long afterId, long newStream) {
        lock.lock();
        try {
            frames.clear();
            from = afterId;
            switchTo(newStream);
            answered = false;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** This instance's listening session broke: what is relayed meanwhile is lost, and silence means nothing. */
    void listeningLost() {
        lock.lock();
        try {
            listening = false;
        } finally {
            lock.unlock();
        }
    }

    /**
     * This instance listens again: the run goes on, on a new stream, after the last event it received.
     *
     * @return the id to ask from
     */
    long resume(long newStream) {
        lock.lock();
        try {
            switchTo(newStream);
            listening = true;
            return frames.isEmpty() ? from : frames.getLast().id();
        } finally {
            lock.unlock();
        }
    }

    private void switchTo(long newStream) {
        stream = newStream;
        assembly = new RelayMessages.Assembly();
        asked = false;
    }

    /** The request for {@code sentStream} was sent: if it is still the current one, its answer is awaited, and silence counted, from now. */
    void asked(long sentStream) {
        lock.lock();
        try {
            if (sentStream != stream) {
                return;
            }
            asked = true;
            askedNanos = nanoTime.getAsLong();
            lastWordNanos = askedNanos;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** A message of stream {@code fromStream} (its stream word taken off). */
    void accept(long fromStream, String body) {
        lock.lock();
        try {
            if (ended || fromStream != stream) {
                return;
            }
            lastWordNanos = nanoTime.getAsLong();
            if (body.startsWith("frame ")) {
                assembly.add(body).ifPresent(frame -> {
                    if (frame.id() > (frames.isEmpty() ? from : frames.getLast().id())) {
                        frames.add(frame);
                    }
                });
                answered = true;
            } else {
                switch (body) {
                    case RelayMessages.HELLO, RelayMessages.PING -> answered = true;
                    case RelayMessages.NONE, RelayMessages.END -> ended = true;
                    default -> {
                        return; // not a word of this protocol
                    }
                }
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits for the other instance's first word after the request, which may still be on its way out.
     *
     * @return true when it answered with the turn; false when it said there is nothing to follow, or said nothing
     *         within {@code wait} of the request (then, unless this instance is not listening, the run ends for every
     *         client)
     */
    boolean awaitAnswer(Duration wait) throws InterruptedException {
        lock.lock();
        try {
            while (!answered && !ended) {
                if (!asked) {
                    changed.await(); // until the request is sent, or could not be
                    continue;
                }
                long left = askedNanos + wait.toNanos() - nanoTime.getAsLong();
                if (left <= 0) {
                    if (listening) {
                        end();
                    }
                    return false;
                }
                changed.awaitNanos(left);
            }
            return answered;
        } finally {
            lock.unlock();
        }
    }

    /** Ends the run for every client: the request for {@code unsentStream}, still the current one, could not be sent. */
    void giveUp(long unsentStream) {
        lock.lock();
        try {
            if (unsentStream == stream) {
                end();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * The events after {@code afterId}, waiting up to {@code wait} for one.
     *
     * @return empty when nothing new came meanwhile; {@code null} once the run ended and nothing is left after {@code afterId}
     */
    List<RunElsewhere.Frame> framesAfter(long afterId, Duration wait) throws InterruptedException {
        lock.lock();
        try {
            long nanos = wait.toNanos();
            while (true) {
                List<RunElsewhere.Frame> newer = newerThan(afterId);
                if (!newer.isEmpty()) {
                    return newer;
                }
                if (!ended && asked && listening && nanoTime.getAsLong() - lastWordNanos > SILENCE.toNanos()) {
                    end();
                }
                if (ended) {
                    return null;
                }
                if (nanos <= 0) {
                    return List.of();
                }
                nanos = changed.awaitNanos(nanos);
            }
        } finally {
            lock.unlock();
        }
    }

    /** One more client follows it. */
    void attach() {
        lock.lock();
        try {
            followers++;
        } finally {
            lock.unlock();
        }
    }

    /** @return how many clients still follow it */
    int detach() {
        lock.lock();
        try {
            return --followers;
        } finally {
            lock.unlock();
        }
    }

    private void end() {
        ended = true;
        changed.signalAll();
    }

    private List<RunElsewhere.Frame> newerThan(long afterId) {
        // Ids increase along the list, each once.
        int found = Collections.binarySearch(frames, new RunElsewhere.Frame(afterId, ""), Comparator.comparingLong(RunElsewhere.Frame::id));
        int first = found >= 0 ? found + 1 : -found - 1;
        return first == frames.size() ? List.of() : List.copyOf(frames.subList(first, frames.size()));
    }
}
