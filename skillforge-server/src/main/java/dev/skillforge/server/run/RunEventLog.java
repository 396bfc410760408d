package dev.skillforge.server.run;

import dev.skillforge.core.agent.AgentEvent;
import dev.skillforge.core.agent.EventSink;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * Every event of one run, numbered, kept so that any number of clients can follow the run, leave,
 * and come back later to read on after the last id they saw: nothing lost, nothing repeated.
 * The run ends with its {@code done} or {@code error} event.
 *
 * <p>Text and reasoning chunks are kept as their characters and where each ends ({@link ChunkRun}), not as an event
 * object each: a provider may stream one character a chunk, and 900,000 such chunks held 76 MB as events (for as long
 * as the run was the conversation's last) where their text is 0.9 MB. Readers get every chunk back as it came, with
 * its id, at most {@value #MAX_FRAMES_PER_READ} at a time.
 */
public final class RunEventLog implements EventSink {

    /** An event with its id, the {@code id:} line of its SSE frame. */
    public record Frame(long id, AgentEvent event) {
    }

    private static final Logger LOG = LoggerFactory.getLogger(RunEventLog.class);

    /** The most frames one read answers: a reader far behind catches up in several reads, never all in one. */
    static final int MAX_FRAMES_PER_READ = 4096;

    private final LongSupplier ids;
    /** Each a {@link Frame} or a {@link ChunkRun}, ids increasing along the list. */
    private final List<Object> entries = new ArrayList<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /** Run on the appending thread after each event, outside the lock: followers that write without a thread of their own. */
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private boolean finished;

    /** @param ids the source of increasing ids (a conversation's ids keep growing across its turns) */
    public RunEventLog(LongSupplier ids) {
        this.ids = ids;
    }

    @Override
    public void accept(AgentEvent event) {
        lock.lock();
        try {
            long id = ids.getAsLong();
            if (!entries.isEmpty() && entries.getLast() instanceof ChunkRun run && run.takes(id, event)) {
                run.add(event);
            } else {
                entries.add(ChunkRun.isChunk(event) ? new ChunkRun(id, event) : new Frame(id, event));
            }
            if (event instanceof AgentEvent.Done || event instanceof AgentEvent.Error) {
                finished = true;
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        for (Runnable listener : listeners) {
            try {
                listener.run();
            } catch (RuntimeException e) {
                // A follower's failure is its own: the run and the other followers go on.
                LOG.warn("a follower of the run failed on an event", e);
            }
        }
    }

    /**
     * Runs {@code listener} after each event from now on, on the thread that added it (the run's, or the one reading the
     * model's answer), until the returned handle is closed. The listener must not block: it is on the path of every chunk
     * of the run.
     */
    public AutoCloseable onEvent(Runnable listener) {
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    /**
     * Frames read with whether the run had finished at that moment, under one lock: when it had, nothing comes after
     * what was read and the frames after it (so a reader that sends {@code frames} and stops at an empty, finished
     * read never misses the last event, as two reads, finished then frames or the other way round, could).
     */
    public record Read(List<Frame> frames, boolean finished) {

        /** Nothing left to send, and nothing to come. */
        public boolean over() {
            return frames.isEmpty() && finished;
        }
    }

    /**
     * The frames with an id above {@code afterId} (at most {@value #MAX_FRAMES_PER_READ}: read again for the rest);
     * when there are none yet and the run goes on, waits up to {@code wait} for one. An empty answer means nothing
     * new in that time.
     */
    public List<Frame> framesAfter(long afterId, Duration wait) throws InterruptedException {
        return read(afterId, wait).frames();
    }

    /** {@link #framesAfter(long, Duration)} with whether the run had finished when they were read. */
    public Read read(long afterId, Duration wait) throws InterruptedException {
        lock.lock();
        try {
            long nanos = wait.toNanos();
            while (true) {
                List<Frame> newer = newerThan(afterId, MAX_FRAMES_PER_READ);
                if (!newer.isEmpty() || finished || nanos <= 0) {
                    return new Read(newer, finished);
                }
                nanos = changed.awaitNanos(nanos);
            }
        } finally {
            lock.unlock();
        }
    }

    /** The frames with an id above {@code afterId} now, with whether the run had finished then. */
    public Read read(long afterId) {
        lock.lock();
        try {
            return new Read(newerThan(afterId, MAX_FRAMES_PER_READ), finished);
        } finally {
            lock.unlock();
        }
    }

    /** Waits until the run finished; true if it did within {@code timeout}. */
    public boolean awaitFinished(Duration timeout) throws InterruptedException {
        lock.lock();
        try {
            long nanos = timeout.toNanos();
            while (!finished && nanos > 0) {
                nanos = changed.awaitNanos(nanos);
            }
            return finished;
        } finally {
            lock.unlock();
        }
    }

    /** Every frame, in order. */
    public List<Frame> frames() {
        lock.lock();
        try {
            return newerThan(Long.MIN_VALUE, Integer.MAX_VALUE);
        } finally {
            lock.unlock();
        }
    }

    private List<Frame> newerThan(long afterId, int most) {
        // Ids increase along the list: binary search for the first entry that ends after afterId.
        int low = 0;
        int high = entries.size();
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (lastId(entries.get(mid)) <= afterId) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        List<Frame> newer = new ArrayList<>();
        for (int i = low; i < entries.size() && newer.size() < most; i++) {
            switch (entries.get(i)) {
                case Frame frame -> newer.add(frame);
                case ChunkRun run -> run.framesAfter(afterId, most - newer.size(), newer);
                default -> throw new IllegalStateException("not an entry: " + entries.get(i));
            }
        }
        return newer;
    }

    private static long lastId(Object entry) {
        return entry instanceof ChunkRun run ? run.lastId() : ((Frame) entry).id();
    }
}
