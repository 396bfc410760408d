package dev.skillforge.server.fleet;

import dev.skillforge.core.agent.AgentEvent;
import dev.skillforge.server.run.AgentRun;
import dev.skillforge.server.run.RunEventLog;
import dev.skillforge.server.store.Notifications;
import dev.skillforge.server.store.StoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Stop and follow a turn from any instance: a request for a turn that runs on another instance
 * reaches it through the database ({@link Notifications}, PostgreSQL's {@code LISTEN}/{@code NOTIFY}),
 * so a client behind a round-robin balancer can stop and re-attach wherever its request lands.
 *
 * <p>Every instance listens on {@value #CHANNEL} for {@code stop ID} (the instance running the turn
 * stops it) and {@code follow ID AFTER REPLY} (the instance running the turn, or that ran it last,
 * sends its events after {@code AFTER} on the follower's own channel {@code REPLY}, then {@code end};
 * a {@code ping} each second while nothing happens, so the follower knows it is still there; or only
 * {@code none} when the turn has ended and the follower saw all of it).
 * Events are sent in the wire form the API streams, cut into parts under the payload limit.
 */
public final class Fleet implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Fleet.class);

    static final String CHANNEL = "skillforge_fleet";
    private static final Duration POLL = Duration.ofMillis(250);
    private static final Duration PING = Duration.ofSeconds(1);
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Notifications notifications;
    private final Function<String, Optional<AgentRun>> localRuns;
    private final Consumer<String> localStop;
    private final Function<AgentEvent, String> wireForm;
    private final Thread listener;
    private volatile boolean closed;

    /**
     * Starts listening.
     *
     * @param localRuns the running (or last) turn of a conversation held here
     * @param localStop stops the running turn of a conversation held here
     * @param wireForm  an event as the API streams it (one line of JSON)
     */
    public Fleet(Notifications notifications, Function<String, Optional<AgentRun>> localRuns, Consumer<String> localStop,
                 Function<AgentEvent, String> wireForm) {
        this.notifications = notifications;
        this.localRuns = localRuns;
        this.localStop = localStop;
        this.wireForm = wireForm;
        this.listener = Thread.ofPlatform().daemon().name("fleet-listener").start(this::listen);
    }

    /** Asks the instance that runs a turn of {@code conversationId} to stop it. @throws StoreException when the database fails */
    public void requestStop(String conversationId) {
        notifications.publish(CHANNEL, "stop " + conversationId);
    }

    /**
     * Follows a turn of {@code conversationId} that another instance runs (or just ran), from the
     * event after {@code afterId}.
     *
     * @return the events, or empty when no instance answered within {@code answerWait}, or the follower had seen them all
     * @throws StoreException when the database fails
     */
    public Optional<RemoteRun> follow(String conversationId, long afterId, Duration answerWait) {
        String reply = "skillforge_follow_" + HexFormat.of().formatHex(randomBytes());
        Notifications.Subscription subscription = notifications.subscribe(reply);
        try {
            notifications.publish(CHANNEL, "follow " + conversationId + " " + afterId + " " + reply);
            RemoteRun run = new RemoteRun(subscription);
            if (!run.awaitAnswer(answerWait)) {
                run.close();
                return Optional.empty();
            }
            return Optional.of(run);
        } catch (RuntimeException e) {
            subscription.close();
            throw e;
        }
    }

    private static byte[] randomBytes() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return bytes;
    }

    // ------------------------------------------------------------------------ this instance's side

    private void listen() {
        while (!closed) {
            try (Notifications.Subscription subscription = notifications.subscribe(CHANNEL)) {
                while (!closed) {
                    subscription.poll(POLL).forEach(this::handle);
                }
            } catch (StoreException e) {
                if (!closed) {
                    log.warn("fleet: not listening to the other instances for a moment: {}", e.getMessage());
                    pause(Duration.ofSeconds(1));
                }
            } catch (RuntimeException e) {
                log.error("fleet: a message could not be handled", e);
            }
        }
    }

    private void handle(String message) {
        String[] words = message.split(" ");
        switch (words[0]) {
            case "stop" -> {
                if (words.length == 2) {
                    localStop.accept(words[1]);
                }
            }
            case "follow" -> {
                if (words.length == 4) {
                    localRuns.apply(words[1]).ifPresent(run -> Thread.ofVirtual().name("fleet-relay-" + words[1])
                            .start(() -> relay(run.events(), Long.parseLong(words[2]), words[3])));
                }
            }
            default -> log.debug("fleet: unknown message {}", message);
        }
    }

    /** Sends a run's events to a follower on another instance, until the run's last event ({@code none}: it had them all). */
    private void relay(RunEventLog events, long afterId, String reply) {
        try {
            if (events.finished() && events.framesAfter(afterId, Duration.ZERO).isEmpty()) {
                notifications.publish(reply, "none");
                return;
            }
            notifications.publish(reply, "hello");
            long last = afterId;
            long quietSince = System.nanoTime();
            while (!closed) {
                List<RunEventLog.Frame> frames = events.framesAfter(last, POLL);
                for (RunEventLog.Frame frame : frames) {
                    sendFrame(reply, frame.id(), wireForm.apply(frame.event()));
                    last = frame.id();
                }
                if (frames.isEmpty() && events.finished()) {
                    notifications.publish(reply, "end");
                    return;
                }
                if (!frames.isEmpty()) {
                    quietSince = System.nanoTime();
                } else if (System.nanoTime() - quietSince > PING.toNanos()) {
                    notifications.publish(reply, "ping");
                    quietSince = System.nanoTime();
                }
            }
        } catch (StoreException e) {
            log.debug("fleet: relay to {} stopped: {}", reply, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** {@code frame ID PART/PARTS TEXT}: the event's JSON cut into parts that fit a notification. */
    private void sendFrame(String reply, long id, String json) {
        List<String> parts = RemoteRun.parts(json, Notifications.MAX_PAYLOAD_BYTES);
        for (int i = 0; i < parts.size(); i++) {
            notifications.publish(reply, "frame " + id + " " + (i + 1) + "/" + parts.size() + " " + parts.get(i));
        }
    }

    private static void pause(Duration duration) {
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            listener.join(POLL.multipliedBy(4));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
