package dev.skillforge.server.run;

import dev.skillforge.core.agent.AgentEvent;
import dev.skillforge.core.agent.AgentLoop;
import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.agent.EventSink;
import dev.skillforge.core.transcript.Transcript;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One turn running on its own virtual thread, independent of any HTTP connection: clients follow
 * it through its {@link RunEventLog}; leaving does not stop it (a caller that wants that cancels it).
 */
public final class AgentRun {

    private static final Logger log = LoggerFactory.getLogger(AgentRun.class);

    private final RunEventLog events;
    private final Cancellation cancellation = new Cancellation();
    private final CountDownLatch ended = new CountDownLatch(1);

    private AgentRun(RunEventLog events) {
        this.events = events;
    }

    /**
     * Starts the turn. Each event goes to {@code observer} first (to record the turn), then to the
     * log; {@code onEnd} runs on the run's thread with the last event once the loop returned.
     */
    public static AgentRun start(AgentLoop loop, Transcript transcript, String systemPrompt, String cacheKey,
                                 RunEventLog events, EventSink observer, Consumer<AgentEvent> onEnd) {
        AgentRun run = new AgentRun(events);
        // The last event (done or error) is published only after onEnd: a client that saw it may start the next turn at once.
        EventSink sink = event -> {
            observer.accept(event);
            if (!(event instanceof AgentEvent.Done || event instanceof AgentEvent.Error)) {
                events.accept(event);
            }
        };
        Thread.ofVirtual().name("run-" + cacheKey).start(() -> {
            AgentEvent last;
            try {
                last = loop.run(transcript, systemPrompt, cacheKey, sink, run.cancellation);
            } catch (RuntimeException e) {
                log.error("run {} failed", cacheKey, e);
                last = new AgentEvent.Error(0, "The server failed while running the turn", "internal_error");
                sink.accept(last);
            }
            try {
                onEnd.accept(last);
            } finally {
                events.accept(last);
                run.ended.countDown();
            }
        });
        return run;
    }

    public RunEventLog events() {
        return events;
    }

    public void cancel(String reason) {
        cancellation.cancel(reason);
    }

    /** Waits until the run and its end action are over; true if that happened within {@code timeout}. */
    public boolean awaitEnd(Duration timeout) {
        try {
            return ended.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    public boolean cancelled() {
        return cancellation.isCancelled();
    }
}
