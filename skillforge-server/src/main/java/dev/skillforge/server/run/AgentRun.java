package dev.skillforge.server.run;

import dev.skillforge.core.agent.AgentEvent;
import dev.skillforge.core.agent.AgentLoop;
import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.agent.CommandRunner;
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
    /** Set when the conversation's lease was lost mid-run: the run ends with {@link #LEASE_LOST} instead of "cancelled". */
    private volatile boolean leaseLost;

    /** The error code a client gets when another instance took the conversation over during the turn. */
    public static final String LEASE_LOST = "conversation_taken_over";

    private AgentRun(RunEventLog events) {
        this.events = events;
    }

    /**
     * Starts the turn. Each event goes to {@code observer} first (to record the turn), then to the
     * log; {@code onEnd} runs on the run's thread with the last event once the loop returned.
     */
    public static AgentRun start(AgentLoop loop, Transcript transcript, String systemPrompt, String cacheKey, CommandRunner commands,
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
                last = loop.run(transcript, systemPrompt, cacheKey, commands, sink, run.cancellation);
            } catch (RuntimeException e) {
                log.error("run {} failed", cacheKey, e);
                last = new AgentEvent.Error(0, "The server failed while running the turn", "internal_error");
                sink.accept(last);
            }
            try {
                onEnd.accept(last); // may find the lease lost
            } finally {
                events.accept(run.leaseLost ? leaseLost(last) : last);
                run.ended.countDown();
            }
        });
        return run;
    }

    private static AgentEvent leaseLost(AgentEvent last) {
        return new AgentEvent.Error(last.iteration(), "Another server instance took this conversation over while this one could not"
                + " renew its lease (a pause or a network partition): the turn was stopped here, and nothing it did after the"
                + " take-over was stored. Reload the conversation to see where it stands.", LEASE_LOST);
    }

    public RunEventLog events() {
        return events;
    }

    public void cancel(String reason) {
        cancellation.cancel(reason);
    }

    /** Stops the run because its conversation's lease was taken over; its last event is an error that says so. */
    public void loseLease() {
        leaseLost = true;
        cancellation.cancel("the conversation was taken over by another server instance");
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
