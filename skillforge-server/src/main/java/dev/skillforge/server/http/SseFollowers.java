package dev.skillforge.server.http;

import dev.skillforge.server.run.RunEventLog;
import io.javalin.http.Context;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The {@link SseFollower}s of one door: one timer for all their pings (every {@value SseWriter#PING_MILLIS} ms, not a
 * timed wait per follower), and an end for all of them when the door closes, while their responses can still be
 * ended cleanly (Jetty, stopping, would otherwise abort them under the framework).
 *
 * <p>Thread-safe.
 */
final class SseFollowers implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SseFollowers.class);

    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "sse-pings");
        thread.setDaemon(true); // shared by every server in the process, never stopped
        return thread;
    });

    private final Set<SseFollower> live = ConcurrentHashMap.newKeySet();
    private final ScheduledFuture<?> pings;

    SseFollowers() {
        pings = TIMER.scheduleWithFixedDelay(this::tick, SseWriter.PING_MILLIS, SseWriter.PING_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** One follower's failure must not end the timer's task: a periodic task that throws is never run again. */
    private void tick() {
        for (SseFollower follower : live) {
            try {
                follower.tick();
            } catch (RuntimeException | Error e) {
                LOG.warn("a follower's ping failed", e);
            }
        }
    }

    /** {@link SseFollower#follow}: follows {@code log} after {@code afterId} on {@code ctx}'s response, without a thread. */
    CompletableFuture<Boolean> follow(Context ctx, RunEventLog log, long afterId) {
        return SseFollower.follow(ctx, log, afterId, this);
    }

    void add(SseFollower follower) {
        live.add(follower);
        follower.ended().whenComplete((toTheEnd, failure) -> live.remove(follower));
    }

    /** Ends every follower's response now; their runs go on. */
    @Override
    public void close() {
        pings.cancel(false);
        live.forEach(SseFollower::stop);
    }
}
