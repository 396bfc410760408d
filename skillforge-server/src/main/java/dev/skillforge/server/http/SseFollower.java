package dev.skillforge.server.http;

import dev.skillforge.server.run.RunEventLog;
import io.javalin.http.Context;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Streams a run's events to one client as Server-Sent Events without a thread of its own.
 *
 * <p>The thread that added an event to the log (the run's, or the provider client's thread that read the model's chunk)
 * writes it to the client itself when the connection can take
 * it at once (the Servlet API's non-blocking output): a relayed chunk costs no wake-up of another thread between its
 * arrival and its bytes leaving, and every event ready at that moment goes out in one write and one flush. A
 * connection that cannot take more (a slow client) holds nobody up: its events wait in the log, and Jetty calls
 * {@link #onWritePossible} when it drains, which sends what came meanwhile. One thread at a time writes (the others
 * leave a note and return). Its {@link SseFollowers} sends a {@code : ping} when it wrote nothing for a while.
 *
 * <p>Frames are the same as {@link SseWriter}'s: {@code id: N} and {@code data: {json}} per event.
 */
final class SseFollower implements WriteListener {

    private static final byte[] PING = ": ping\n\n".getBytes(StandardCharsets.UTF_8);

    private final RunEventLog log;
    private final ServletOutputStream out;
    private final SseFrames batch = new SseFrames();
    /** Completes with true once the run's last event was sent, false when the client went away first. */
    private final CompletableFuture<Boolean> ended = new CompletableFuture<>();
    /** Requests to write; the thread that raises it from zero writes until it is back to zero. */
    private final AtomicInteger requests = new AtomicInteger();
    /** The log's call after each event, from when the output is non-blocking until the follower ends. */
    private volatile AutoCloseable subscription;
    // Touched only by the thread that writes (requests > 0), which publishes them to the next one through requests.
    private long last;
    private boolean headersSent;
    private boolean flushDue;
    /** Set by a write, cleared by the ping timer: a follower that wrote nothing between two ticks gets a ping. */
    private volatile boolean wrote;
    private volatile boolean pingDue;

    private SseFollower(RunEventLog log, ServletOutputStream out, long afterId) {
        this.log = log;
        this.out = out;
        this.last = afterId;
        // However it ends (sent, client gone, or cancelled by the request's asynchronous timeout), it stops following.
        ended.whenComplete((toTheEnd, failure) -> stopFollowing());
    }

    /** Makes the output non-blocking, then follows: no thread may write before that, or it would write blocking. */
    private void start(SseFollowers group) {
        out.setWriteListener(this); // Jetty calls onWritePossible once the request's handler returned
        subscription = log.onEvent(this::pump);
        group.add(this);
        if (ended.isDone()) {
            stopFollowing(); // it ended before it subscribed
        }
        pump(); // what came before the subscription
    }

    /**
     * Follows {@code log} after {@code afterId} on {@code ctx}'s response, asynchronously: the request's thread
     * returns at once. The answer completes with true when everything was sent, false when the client went away
     * (or {@code group} closed first).
     */
    static CompletableFuture<Boolean> follow(Context ctx, RunEventLog log, long afterId, SseFollowers group) {
        SseWriter.startEventStream(ctx.res());
        CompletableFuture<Boolean> followed = new CompletableFuture<>();
        // Javalin starts the request's asynchronous mode, then asks for the future that ends it.
        ctx.future(() -> {
            try {
                SseFollower follower = new SseFollower(log, ctx.res().getOutputStream(), afterId);
                follower.ended.whenComplete((toTheEnd, failure) -> followed.complete(failure == null && toTheEnd));
                follower.start(group);
                return follower.ended;
            } catch (IOException | RuntimeException e) {
                followed.complete(false);
                return CompletableFuture.failedFuture(e);
            }
        });
        return followed;
    }

    /** Done with true, with false when the client went away or the server stops first. */
    CompletableFuture<Boolean> ended() {
        return ended;
    }

    /** Stops following: the response ends here (its client may come back with {@code Last-Event-ID}). */
    void stop() {
        end(false);
    }

    /**
     * Called every ping interval: a follower that wrote nothing since the last call sends a ping, which is how a client
     * that left during a quiet run is noticed.
     */
    void tick() {
        if (wrote) {
            wrote = false;
        } else {
            pingDue = true;
            pump();
        }
    }

    @Override
    public void onWritePossible() {
        pump();
    }

    @Override
    public void onError(Throwable failure) {
        end(false);
    }

    /** Writes what is ready, on this thread, unless another is writing: that one then goes on for it. */
    private void pump() {
        if (requests.getAndIncrement() != 0) {
            return;
        }
        int handled = 1;
        do {
            writeWhatIsReady();
            handled = requests.addAndGet(-handled);
        } while (handled != 0);
    }

    private void writeWhatIsReady() {
        try {
            // Each write or flush only when the connection said it can take one now; when it cannot, Jetty calls
            // onWritePossible later.
            while (!ended.isDone() && out.isReady()) {
                if (!headersSent || flushDue) {
                    headersSent = true;
                    flushDue = false;
                    out.flush();
                    continue;
                }
                // The frames and whether the run finished, in one read: read apart, the last event could come in between
                // and be left unsent (the appender's call to pump() finds this thread writing and leaves it a note, too late).
                RunEventLog.Read read = log.read(last);
                if (!read.frames().isEmpty()) {
                    for (RunEventLog.Frame frame : read.frames()) {
                        batch.add(frame.id(), frame.event());
                        last = frame.id();
                    }
                    batch.sendTo(out);
                } else if (read.finished()) {
                    end(true); // the connection was ready: everything written has left
                    return;
                } else if (pingDue) {
                    out.write(PING);
                } else {
                    return;
                }
                pingDue = false;
                wrote = true;
                flushDue = true;
            }
        } catch (IOException | RuntimeException e) {
            end(false); // the client went away (or its connection failed): the run goes on without it
        } catch (Error e) {
            end(false); // out of memory, say: this follower is over, and stops being one, whatever the caller does next
            throw e;
        }
    }

    private void end(boolean toTheEnd) {
        ended.complete(toTheEnd);
    }

    private void stopFollowing() {
        AutoCloseable following = subscription;
        if (following == null) {
            return;
        }
        try {
            following.close();
        } catch (Exception e) {
            throw new IllegalStateException("a run's listener could not be removed", e);
        }
    }
}
