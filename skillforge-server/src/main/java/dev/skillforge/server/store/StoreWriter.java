package dev.skillforge.server.store;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * Write-behind for a {@link ConversationStore}: keeps database latency and outages off the request
 * path. {@link #submit} only queues; one background virtual thread applies the queued writes in
 * submission order, in batches (everything queued, up to {@link Options#maxBatch()} writes, one
 * {@link ConversationStore#apply} call per batch).
 *
 * <p><b>Queue.</b> Unbounded: {@code submit} never blocks and never drops. During a long outage
 * the queue grows in memory (each write holds its entry's text); {@link #health()} shows how many
 * writes are pending so an operator sees it. Blocking the request path or dropping writes would
 * each break a promise this class exists to keep.
 *
 * <p><b>Failures.</b> When a batch fails with a {@link StoreException}, or any other runtime
 * exception, the writer logs a WARN once per outage, waits (backoff from
 * {@link Options#minBackoff()} doubling to {@link Options#maxBackoff()}) and applies the
 * <em>same</em> batch again, for as long as it takes, keeping the order; when the store answers
 * again it logs a summary at INFO. Writes are idempotent, so a batch whose commit was not
 * confirmed can be sent again. A {@link StoreRejectedException} means the store refuses the data
 * itself and would refuse it forever: the writer then applies the batch write by write (units
 * from {@link #submitAll} first), and drops only the refused writes, each logged at ERROR and
 * counted in {@link Health#dropped()}, so one bad write cannot hold every later one back. A
 * {@link StorageFailureException} (a full or failing disk) is retried like an outage, and said as
 * what it is: {@link #storageFailure()} tells while it lasts, so that new work can be refused
 * rather than piled up in memory that may never be stored.
 *
 * <p><b>Durability.</b> A write is durable once applied; {@link #flush} waits for that. A
 * {@link #close()} flushes (up to {@link Options#closeTimeout()}); writes still queued after that
 * are reported at ERROR and lost. After a crash, what was not yet applied is lost: the loss window
 * is the time a write waits in the queue, normally one batch.
 *
 * <p><b>Fencing.</b> Writes the store refuses because their lease epoch is stale
 * ({@link ConversationStore.Fenced}) are not retried: they are dropped, and the listener set with
 * {@link #onFenced} hears of each such conversation, so the instance that made them stops.
 *
 * <p>Thread-safe: any thread may submit and flush.
 */
public final class StoreWriter implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(StoreWriter.class);

    /**
     * How the writer batches and retries.
     *
     * @param maxBatch     the most writes in one {@code apply} call (a unit from {@link #submitAll}
     *                     larger than this still goes whole)
     * @param minBackoff   the first wait after a failed batch
     * @param maxBackoff   the longest wait between retries
     * @param closeTimeout how long {@link #close()} waits for queued writes to be applied
     * @param linger       how long a batch shorter than {@code maxBatch} waits for more writes before it is applied,
     *                     unless someone waits for a {@link #flush}: one commit for several writes under load
     */
    public record Options(int maxBatch, Duration minBackoff, Duration maxBackoff, Duration closeTimeout, Duration linger) {

        public static final Options DEFAULT =
                new Options(500, Duration.ofMillis(50), Duration.ofSeconds(2), Duration.ofSeconds(10), Duration.ofMillis(5));

        /** Options whose batches are applied as soon as the writer is free. */
        public Options(int maxBatch, Duration minBackoff, Duration maxBackoff, Duration closeTimeout) {
            this(maxBatch, minBackoff, maxBackoff, closeTimeout, Duration.ZERO);
        }

        public Options {
            Objects.requireNonNull(linger, "linger");
            if (maxBatch < 1) {
                throw new IllegalArgumentException("maxBatch must be at least 1, was " + maxBatch);
            }
            Objects.requireNonNull(minBackoff, "minBackoff");
            Objects.requireNonNull(maxBackoff, "maxBackoff");
            Objects.requireNonNull(closeTimeout, "closeTimeout");
            if (minBackoff.isNegative() || maxBackoff.compareTo(minBackoff) < 0) {
                throw new IllegalArgumentException("need 0 <= minBackoff <= maxBackoff");
            }
        }
    }

    /**
     * What {@code /healthz} shows of the writer.
     *
     * @param pending   writes submitted and not yet applied (or dropped)
     * @param failing   whether the store is failing now (the writer is retrying)
     * @param lastError the message of the last failure, or {@code null} if there was none; it
     *                  stays after a recovery, for diagnosis
     * @param dropped   writes dropped since start because the store refused their data
     */
    public record Health(long pending, boolean failing, String lastError, long dropped) {
    }

    private final ConversationStore store;
    private final Options options;
    private final List<Consumer<ConversationStore.Fenced>> fencedListeners = new CopyOnWriteArrayList<>();
    private final Thread thread;

    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when work is queued, and when the writer must stop or give up. */
    private final Condition wakeUp = lock.newCondition();
    /** Signalled when writes have been applied. */
    private final Condition progress = lock.newCondition();

    // Guarded by lock.
    private final ArrayDeque<List<Write>> queue = new ArrayDeque<>();
    private long submitted;
    private long done;
    /** Writes in {@link #queue}. */
    private long queuedWrites;
    /** The writer waits for more writes before applying a short batch: a submit need not wake it. */
    private boolean lingering;
    private int flushWaiters;
    private boolean closed;
    private boolean stopping;
    private boolean abandoned;

    // Written by the writer thread only; read by health().
    private volatile boolean failing;
    private volatile String lastError;
    private volatile long dropped;
    private volatile String storageFailure;

    // The writer thread's own.
    private long outageStartNanos;
    private long outageRetries;
    private StoreRejectedException lastRefusal;

    /** A writer with {@link Options#DEFAULT}; starts its thread at once. */
    public StoreWriter(ConversationStore store) {
        this(store, Options.DEFAULT);
    }

    public StoreWriter(ConversationStore store, Options options) {
        this.store = Objects.requireNonNull(store, "store");
        this.options = Objects.requireNonNull(options, "options");
        this.thread = Thread.ofVirtual().name("store-writer").start(this::run);
    }

    /** Adds one who hears of writes refused as fenced (called on the writer's thread; must not block). */
    public void onFenced(Consumer<ConversationStore.Fenced> listener) {
        fencedListeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Queues a write. Never blocks and never waits for the database.
     *
     * @return its position, for {@link #applied}
     * @throws IllegalStateException if the writer is closed
     */
    public long submit(Write write) {
        Objects.requireNonNull(write, "write");
        return enqueue(List.of(write));
    }

    /**
     * Queues writes that belong together (the entries and turn record of one step): they are
     * applied in one batch, so they land all or none. Never blocks.
     *
     * @return the position of the last of them, for {@link #applied}
     * @throws IllegalStateException if the writer is closed
     */
    public long submitAll(List<? extends Write> writes) {
        List<Write> unit = List.copyOf(writes); // also refuses null writes
        return unit.isEmpty() ? 0 : enqueue(unit);
    }

    private long enqueue(List<Write> unit) {
        lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("The store writer is closed: the write was not queued");
            }
            queue.addLast(unit);
            submitted += unit.size();
            queuedWrites += unit.size();
            if (!lingering || queuedWrites >= options.maxBatch()) {
                wakeUp.signal();
            }
            return submitted;
        } finally {
            lock.unlock();
        }
    }

    /** Whether the writes up to {@code position} ({@link #submit}) have been applied, or dropped as refused. */
    public boolean applied(long position) {
        lock.lock();
        try {
            return done >= position;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until every write submitted before this call is applied (or dropped as refused).
     *
     * @return {@code true} if they are, {@code false} if {@code timeout} passed first (the store is
     *         down or slow) or the calling thread was interrupted (its flag is set again)
     */
    public boolean flush(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        lock.lock();
        flushWaiters++;
        try {
            if (lingering) {
                wakeUp.signal(); // a flush is awaited: no more waiting for a fuller batch
            }
            long target = submitted;
            while (done < target) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                progress.awaitNanos(left);
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            flushWaiters--;
            lock.unlock();
        }
    }

    /** Writes submitted and not yet applied, the batch being applied included. */
    public long pending() {
        lock.lock();
        try {
            return submitted - done;
        } finally {
            lock.unlock();
        }
    }

    /** A snapshot for {@code /healthz}. */
    public Health health() {
        return new Health(pending(), failing, lastError, dropped);
    }

    /**
     * Why the database cannot write now for lack of room or a failing disk ({@link StorageFailureException}), while
     * that lasts: until a batch is applied again. Empty otherwise, also while the database is merely unreachable.
     */
    public Optional<String> storageFailure() {
        return Optional.ofNullable(storageFailure);
    }

    /**
     * Refuses further writes, waits up to {@link Options#closeTimeout()} for the queued ones to be
     * applied, then stops the thread. Writes still pending then (the store is down) are lost and
     * reported at ERROR. Does not close the store: close the writer first, then the store.
     * Idempotent.
     */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
        } finally {
            lock.unlock();
        }
        boolean flushed = flush(options.closeTimeout());
        lock.lock();
        try {
            stopping = true;
            abandoned = !flushed;
            wakeUp.signalAll();
        } finally {
            lock.unlock();
        }
        try {
            // A batch in flight is not interrupted (a JDBC call cut short leaves its connection in
            // doubt); give it the time a store call takes to fail.
            if (!thread.join(options.closeTimeout().plusSeconds(10))) {
                LOG.error("The store writer did not stop: a store call is hanging");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        long lost = pending();
        if (lost > 0) {
            LOG.error("{} conversation writes were not stored: the store was still failing after {} ({})",
                    lost, options.closeTimeout(), lastError);
        }
    }

    // ------------------------------------------------------------------------- writer thread

    private void run() {
        try {
            while (true) {
                List<List<Write>> units = nextBatch();
                if (units == null) {
                    return;
                }
                if (!store(units)) {
                    return; // abandoned by close(): what is left is counted there
                }
                int size = 0;
                for (List<Write> unit : units) {
                    size += unit.size();
                }
                markDone(size);
            }
        } catch (Throwable e) {
            // Only an Error gets here (store() retries every RuntimeException): say so loudly,
            // and let health() show that nothing is being stored any more.
            failing = true;
            lastError = "The store writer stopped: " + e;
            LOG.error("The store writer stopped; conversation writes are no longer stored", e);
            throw e;
        }
    }

    /** Waits for queued units and takes up to maxBatch writes of them; null once stopping and empty. */
    private List<List<Write>> nextBatch() {
        lock.lock();
        try {
            while (queue.isEmpty()) {
                if (stopping) {
                    return null;
                }
                wakeUp.awaitUninterruptibly();
            }
            lingerForMore();
            List<List<Write>> units = new ArrayList<>();
            int size = 0;
            while (!queue.isEmpty() && (units.isEmpty() || size + queue.peekFirst().size() <= options.maxBatch())) {
                List<Write> unit = queue.pollFirst();
                units.add(unit);
                size += unit.size();
            }
            queuedWrites -= size;
            return units;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Under the lock, with writes queued: waits up to {@link Options#linger()} for the batch to fill, unless a flush is
     * awaited or the writer stops. Submits during the wait do not wake the writer, so waiting costs one timed park.
     */
    private void lingerForMore() {
        long end = System.nanoTime() + options.linger().toNanos();
        lingering = true;
        try {
            while (queuedWrites < options.maxBatch() && flushWaiters == 0 && !stopping) {
                long left = end - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                wakeUp.awaitNanos(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lingering = false;
        }
    }

    private void markDone(int writes) {
        lock.lock();
        try {
            done += writes;
            progress.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private enum Outcome { APPLIED, REFUSED, ABANDONED }

    /** Applies the units as one batch, isolating refused writes; false if abandoned meanwhile. */
    private boolean store(List<List<Write>> units) {
        List<Write> batch = units.size() == 1 ? units.getFirst() : units.stream().flatMap(List::stream).toList();
        Outcome outcome = applyUntilAnswered(batch);
        if (outcome != Outcome.REFUSED) {
            return outcome == Outcome.APPLIED;
        }
        // Something in the batch is refused for good: narrow it down to the writes at fault.
        for (List<Write> unit : units) {
            Outcome unitOutcome = units.size() == 1 ? Outcome.REFUSED : applyUntilAnswered(unit);
            if (unitOutcome == Outcome.ABANDONED) {
                return false;
            }
            if (unitOutcome == Outcome.REFUSED) {
                for (Write write : unit) {
                    Outcome writeOutcome = unit.size() == 1 ? Outcome.REFUSED : applyUntilAnswered(List.of(write));
                    if (writeOutcome == Outcome.ABANDONED) {
                        return false;
                    }
                    if (writeOutcome == Outcome.REFUSED) {
                        drop(write);
                    }
                }
            }
        }
        return true;
    }

    /** Applies the batch, retrying with backoff until the store answers (or close() gives up). */
    private Outcome applyUntilAnswered(List<Write> batch) {
        Duration backoff = options.minBackoff();
        while (true) {
            try {
                Set<ConversationStore.Fenced> fenced = store.apply(batch);
                answered();
                fenced.forEach(this::tellFenced);
                return Outcome.APPLIED;
            } catch (StoreRejectedException e) {
                answered(); // a refusal is an answer: the store is up
                lastRefusal = e;
                return Outcome.REFUSED;
            } catch (RuntimeException e) {
                failed(e);
                if (!pause(backoff)) {
                    return Outcome.ABANDONED;
                }
                Duration doubled = backoff.multipliedBy(2);
                backoff = doubled.compareTo(options.maxBackoff()) > 0 ? options.maxBackoff() : doubled;
            }
        }
    }

    private void tellFenced(ConversationStore.Fenced fenced) {
        for (Consumer<ConversationStore.Fenced> listener : fencedListeners) {
            try {
                listener.accept(fenced);
            } catch (RuntimeException e) {
                LOG.warn("A fencing listener failed for conversation {}", fenced.conversationId(), e);
            }
        }
    }

    private void failed(RuntimeException e) {
        lastError = e.getMessage() == null ? e.getClass().getName() : e.getMessage();
        boolean noRoom = e instanceof StorageFailureException;
        boolean newKind = noRoom != (storageFailure != null);
        storageFailure = noRoom ? lastError : null;
        if (failing && !newKind) {
            outageRetries++;
            LOG.debug("Store write retry {} failed", outageRetries, e);
            return;
        }
        if (!failing) {
            failing = true;
            outageStartNanos = System.nanoTime();
            outageRetries = 0;
        }
        // Once per outage (and again if its kind changes), without the stack trace: the message says what is wrong.
        if (noRoom) {
            LOG.warn("The database cannot write: its disk is full or failing. {} writes are kept in memory and retried with"
                    + " backoff up to {}; new conversations and turns are refused until it can write again: {}",
                    pending(), options.maxBackoff(), lastError);
        } else {
            LOG.warn("The conversation store is failing; retrying with backoff up to {} ({} writes pending): {}",
                    options.maxBackoff(), pending(), lastError);
        }
        LOG.debug("Store write failure", e);
    }

    private void answered() {
        storageFailure = null;
        if (failing) {
            failing = false;
            LOG.info("The conversation store answers again after {} ms and {} failed attempts; {} writes pending",
                    (System.nanoTime() - outageStartNanos) / 1_000_000, outageRetries + 1, pending());
        }
    }

    private void drop(Write write) {
        dropped++;
        String reason = lastRefusal == null ? "refused" : lastRefusal.getMessage();
        LOG.error("Dropped a {} write for conversation {}: the store refuses it, so retrying cannot help: {}",
                write.getClass().getSimpleName(), write.conversationId(), reason);
    }

    /** Sleeps the backoff unless close() gives up first; false if it did. */
    private boolean pause(Duration backoff) {
        long deadline = System.nanoTime() + backoff.toNanos();
        lock.lock();
        try {
            long left;
            while (!abandoned && (left = deadline - System.nanoTime()) > 0) {
                try {
                    wakeUp.awaitNanos(left);
                } catch (InterruptedException ignored) {
                    // Nobody but close() may stop this thread, and close() says so through 'abandoned'.
                }
            }
            return !abandoned;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "StoreWriter[" + store + ", " + health() + "]";
    }
}
