package dev.skillforge.server.run;

import dev.skillforge.core.agent.AgentEvent;
import dev.skillforge.core.agent.EventSink;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * Every event of one run, numbered, kept so that any number of clients can follow the run, leave,
 * and come back later to read on after the last id they saw: nothing lost, nothing repeated.
 * The run ends with its {@code done} or {@code error} event.
 */
public final class RunEventLog implements EventSink {

    /** An event with its id, the {@code id:} line of its SSE frame. */
    public record Frame(long id, AgentEvent event) {
    }

    private final LongSupplier ids;
    private final List<Frame> frames = new ArrayList<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private boolean finished;

    /** @param ids the source of increasing ids (a conversation's ids keep growing across its turns) */
    public RunEventLog(LongSupplier ids) {
        this.ids = ids;
    }

    @Override
    public void accept(AgentEvent event) {
        lock.lock();
        try {
            frames.add(new Frame(ids.getAsLong(), event));
            if (event instanceof AgentEvent.Done || event instanceof AgentEvent.Error) {
                finished = true;
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The frames with an id above {@code afterId}; when there are none yet and the run goes on,
     * waits up to {@code wait} for one. An empty answer means nothing new in that time.
     */
    public List<Frame> framesAfter(long afterId, Duration wait) throws InterruptedException {
        lock.lock();
        try {
            long nanos = wait.toNanos();
            while (true) {
                List<Frame> newer = newerThan(afterId);
                if (!newer.isEmpty() || finished || nanos <= 0) {
                    return newer;
                }
                nanos = changed.awaitNanos(nanos);
            }
        } finally {
            lock.unlock();
        }
    }

    /** True once the last event ({@code done} or {@code error}) is in the log. */
    public boolean finished() {
        lock.lock();
        try {
            return finished;
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

    public List<Frame> frames() {
        lock.lock();
        try {
            return List.copyOf(frames);
        } finally {
            lock.unlock();
        }
    }

    private List<Frame> newerThan(long afterId) {
        // Ids increase along the list: binary search for the first newer frame.
        int low = 0;
        int high = frames.size();
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (frames.get(mid).id() <= afterId) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low == frames.size() ? List.of() : List.copyOf(frames.subList(low, frames.size()));
    }
}
