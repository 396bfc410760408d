package dev.skillforge.server.http;

import dev.skillforge.core.agent.AgentEvent;
import dev.skillforge.server.run.RunEventLog;
import io.javalin.http.Context;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A writer other than the run's thread (Jetty's onWritePossible, the ping timer, the request's thread in start())
 * reads "no new frames", then the run appends its last event and calls pump() (which sees another writer and leaves
 * a note), then the writer reads finished() == true and ends the stream with true: the last event is never sent.
 */
class SseFollowerLastEventRaceTest {

    /** A connection that always takes everything at once. */
    static final class Out extends ServletOutputStream {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        volatile WriteListener listener;

        @Override public boolean isReady() { return true; }
        @Override public void setWriteListener(WriteListener writeListener) { listener = writeListener; }
        @Override public synchronized void write(int b) { bytes.write(b); }
        @Override public synchronized void write(byte[] b, int off, int len) { bytes.write(b, off, len); }
        synchronized String text() { return bytes.toString(StandardCharsets.UTF_8); }
    }

    @SuppressWarnings("unchecked")
    static Context context(Out out) {
        ClassLoader loader = SseFollowerLastEventRaceTest.class.getClassLoader();
        HttpServletResponse res = (HttpServletResponse) Proxy.newProxyInstance(loader, new Class<?>[]{HttpServletResponse.class},
                (proxy, method, args) -> method.getName().equals("getOutputStream") ? out : null);
        return (Context) Proxy.newProxyInstance(loader, new Class<?>[]{Context.class}, (proxy, method, args) -> switch (method.getName()) {
            case "res" -> res;
            case "future" -> {
                ((Supplier<CompletableFuture<?>>) args[0]).get(); // as Javalin does once the handler returned
                yield null;
            }
            default -> throw new UnsupportedOperationException(method.getName());
        });
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void theRunsLastEventIsSentWhenItArrivesWhileAnotherThreadWrites() throws Exception {
        int rounds = 20_000;
        RunEventLog[] logs = new RunEventLog[1];
        AtomicLong round = new AtomicLong();
        AtomicLong appended = new AtomicLong();
        Thread run = Thread.ofPlatform().daemon().start(() -> { // the run's thread: appends the last event
            for (long r = 1; r <= rounds; r++) {
                while (round.get() < r) {
                    Thread.onSpinWait();
                }
                for (int spin = ThreadLocalRandom.current().nextInt(400); spin > 0; spin--) {
                    Thread.onSpinWait();
                }
                logs[0].accept(new AgentEvent.Error(0, "the end", "x"));
                appended.set(r);
            }
        });
        int lost = 0;
        int notEnded = 0;
        String example = null;
        try (SseFollowers group = new SseFollowers()) {
            for (long r = 1; r <= rounds; r++) {
                RunEventLog log = new RunEventLog(new AtomicLong()::incrementAndGet);
                Out out = new Out();
                CompletableFuture<Boolean> followed = SseFollower.follow(context(out), log, 0, group);
                logs[0] = log;
                round.set(r);
                for (int spin = ThreadLocalRandom.current().nextInt(100); spin > 0; spin--) {
                    Thread.onSpinWait();
                }
                out.listener.onWritePossible(); // Jetty: the connection drained
                while (appended.get() < r) {
                    Thread.onSpinWait();
                }
                if (!followed.isDone()) {
                    notEnded++;
                } else if (followed.getNow(null) && !out.text().contains("id: 1\n")) {
                    lost++;
                    example = out.text();
                }
            }
        }
        run.join();
        System.out.printf("rounds=%d lost=%d notEnded=%d%n", rounds, lost, notEnded);
        assertThat(notEnded).as("streams that never ended").isZero();
        assertThat(lost).as("streams that ended 'to the end' without the run's last event; one sent: %s", example).isZero();
    }
}
