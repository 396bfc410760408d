package dev.skillforge.server.document;

import dev.skillforge.core.agent.Cancellation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Runs extractions off the threads that ask for them, on a few platform threads of their own: at most that many
 * files are read at once however many requests bring them, and CPU-bound parsing never holds a carrier of the
 * virtual threads that serve requests. A caller waits a bounded time for its turn (then BUSY), its work runs within a
 * {@link Deadline} that starts when the work does, and a caller that goes away stops its work at the next check.
 */
final class ExtractionWorkers {

    /** How much longer than its limit a caller waits for work that is stuck where it cannot check its deadline. */
    private static final Duration GRACE = Duration.ofSeconds(5);

    private static final Logger log = LoggerFactory.getLogger(ExtractionWorkers.class);
    private static final AtomicInteger POOLS = new AtomicInteger();

    /** The server's workers ({@link DocumentLimits}). */
    static final ExtractionWorkers SHARED = new ExtractionWorkers(DocumentLimits.EXTRACTION_WORKERS, DocumentLimits.MAX_WAITING_EXTRACTIONS,
            Duration.ofMillis(DocumentLimits.MAX_EXTRACTION_WAIT_MILLIS), Duration.ofMillis(DocumentLimits.MAX_EXTRACT_MILLIS),
            InstantSource.system());

    private final ThreadPoolExecutor threads;
    private final Duration maxWait;
    private final Duration limit;
    private final InstantSource clock;

    /**
     * @param workers    files read at once
     * @param maxWaiting callers that may wait for a worker; one more is refused at once
     * @param maxWait    how long a caller waits for a worker
     * @param limit      each extraction's time, from when its work starts
     */
    ExtractionWorkers(int workers, int maxWaiting, Duration maxWait, Duration limit, InstantSource clock) {
        this.maxWait = maxWait;
        this.limit = limit;
        this.clock = clock;
        int pool = POOLS.incrementAndGet();
        AtomicInteger ids = new AtomicInteger();
        this.threads = new ThreadPoolExecutor(workers, workers, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(maxWaiting), task -> {
            Thread thread = new Thread(task, "document-reader-" + pool + "-" + ids.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * {@code work}'s result, computed on a worker within its deadline.
     *
     * @param caller cancelled when whoever asked has gone: the work stops at its next check
     * @throws DocumentException what the work threw; BUSY when no worker was free in time; STOPPED when the caller
     *                           went away; TOO_LARGE when the work ran out of time or of memory
     */
    <T> T run(Cancellation caller, Function<Deadline, T> work) {
        Job<T> job = new Job<>(work);
        Future<T> future;
        try {
            future = threads.submit(job::call);
        } catch (RejectedExecutionException full) {
            throw busy();
        }
        AutoCloseable unregister = caller.onCancel(() -> {
            job.stop(caller.reason());
            future.cancel(false);
        });
        try {
            if (!job.waitOver.await(maxWait.toMillis(), TimeUnit.MILLISECONDS) && future.cancel(false)) {
                throw busy();
            }
            return future.get(limit.plus(GRACE).toMillis(), TimeUnit.MILLISECONDS);
        } catch (CancellationException beforeItStarted) {
            throw DocumentException.stopped("The attachments were not read: " + caller.reason());
        } catch (TimeoutException stuck) {
            job.stop("its time was up");
            throw DocumentException.tooLarge("The attachments took longer than " + Deadline.said(limit) + " to read");
        } catch (ExecutionException failed) {
            throw unwrapped(failed.getCause());
        } catch (InterruptedException e) {
            job.stop("the server is stopping");
            future.cancel(false);
            Thread.currentThread().interrupt();
            throw DocumentException.stopped("The attachments were not read: the server is stopping");
        } finally {
            close(unregister);
        }
    }

    private static RuntimeException unwrapped(Throwable cause) {
        if (cause instanceof OutOfMemoryError) {
            // The last line behind the limits, which should make this impossible: the work's objects are all
            // unreachable once it has failed, so the server goes on.
            log.error("reading an attachment ran out of memory; it is refused", cause);
            return DocumentException.tooLarge("The attachment needs more memory to read than this server has to spare");
        }
        if (cause instanceof RuntimeException runtime) {
            return runtime;
        }
        if (cause instanceof Error error) {
            throw error;
        }
        return new IllegalStateException("reading an attachment failed", cause);
    }

    private static DocumentException busy() {
        return DocumentException.busy("The server is reading as many attachments as it reads at once; send the message again in a"
                + " moment");
    }

    private static void close(AutoCloseable unregister) {
        try {
            unregister.close();
        } catch (Exception impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    /** One extraction: its deadline starts when a worker takes it. */
    private final class Job<T> {
        private final Function<Deadline, T> work;
        /** Open until a worker takes the job or its caller goes away. */
        private final CountDownLatch waitOver = new CountDownLatch(1);
        private volatile Deadline deadline;
        private volatile String stopped;

        Job(Function<Deadline, T> work) {
            this.work = work;
        }

        T call() {
            Deadline mine = new Deadline(clock, limit);
            deadline = mine;
            waitOver.countDown();
            String early = stopped;
            if (early != null) {
                mine.stop(early);
            }
            return work.apply(mine);
        }

        void stop(String why) {
            stopped = why;
            waitOver.countDown();
            Deadline running = deadline;
            if (running != null) {
                running.stop(why);
            }
        }
    }
}
