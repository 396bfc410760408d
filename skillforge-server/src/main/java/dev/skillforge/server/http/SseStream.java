package dev.skillforge.server.http;

import dev.skillforge.core.agent.AgentEvent;
import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.agent.EventSink;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A run's events on the wire as Server-Sent Events: {@code id: N} and {@code data: {json}} per event.
 *
 * <p>A client that leaves is noticed only when a write fails, so while the run is quiet (waiting on
 * the provider or a command) a comment line is written every {@value #PING_MILLIS} ms. The first
 * failed write cancels the run, which aborts the upstream request: a closed tab stops paying for
 * tokens within a second.
 */
public final class SseStream implements EventSink, AutoCloseable {

    static final long PING_MILLIS = 250;
    private static final byte[] PING = ": ping\n\n".getBytes(StandardCharsets.UTF_8);
    private static final ScheduledExecutorService HEARTBEAT = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("sse-heartbeat").factory());

    private final OutputStream out;
    private final Cancellation cancellation;
    private final ReentrantLock lock = new ReentrantLock();
    private final AtomicBoolean pinging = new AtomicBoolean();
    private final ScheduledFuture<?> heartbeat;
    private long nextId = 1;
    private volatile long lastWriteNanos = System.nanoTime();
    private volatile boolean broken;

    public SseStream(HttpServletResponse response, Cancellation cancellation) throws IOException {
        response.setStatus(200);
        response.setContentType("text/event-stream;charset=utf-8");
        response.setHeader("Cache-Control", "no-cache");
        response.setHeader("X-Accel-Buffering", "no");
        this.out = response.getOutputStream();
        this.cancellation = cancellation;
        out.flush(); // headers go out now: the client knows the run started
        this.heartbeat = HEARTBEAT.scheduleAtFixedRate(this::pingIfQuiet, PING_MILLIS, PING_MILLIS, TimeUnit.MILLISECONDS);
    }

    @Override
    public void accept(AgentEvent event) {
        lock.lock();
        try {
            long id = nextId++;
            write(("id: " + id + "\ndata: " + EventJson.write(event) + "\n\n").getBytes(StandardCharsets.UTF_8));
        } finally {
            lock.unlock();
        }
    }

    /** True once a write failed: the client is gone. */
    public boolean broken() {
        return broken;
    }

    private void pingIfQuiet() {
        if (broken || System.nanoTime() - lastWriteNanos < TimeUnit.MILLISECONDS.toNanos(PING_MILLIS)) {
            return;
        }
        if (pinging.compareAndSet(false, true)) {
            // A write can block on a slow client: never on the shared heartbeat thread.
            Thread.ofVirtual().start(() -> {
                try {
                    if (lock.tryLock()) {
                        try {
                            write(PING);
                        } finally {
                            lock.unlock();
                        }
                    }
                } finally {
                    pinging.set(false);
                }
            });
        }
    }

    private void write(byte[] frame) {
        if (broken) {
            return;
        }
        try {
            out.write(frame);
            out.flush();
            lastWriteNanos = System.nanoTime();
        } catch (IOException | RuntimeException e) {
            broken = true;
            cancellation.cancel("the client disconnected");
        }
    }

    @Override
    public void close() {
        heartbeat.cancel(false);
    }
}
