package dev.skillforge.server.fleet;

import dev.skillforge.core.agent.AgentEvent;
import dev.skillforge.server.run.AgentRun;
import dev.skillforge.server.run.RunEventLog;
import dev.skillforge.server.store.Notifications;
import dev.skillforge.server.store.StoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The side of the instance that runs a turn: one relay per following instance and conversation sends the turn's
 * events to that instance's channel ({@link RelayMessages}), however many of its clients follow; that instance
 * hands them out to its clients. Each batch of events that is ready goes in one transaction, from the pool.
 */
final class Relays implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Relays.class);

    private static final Duration POLL = Duration.ofMillis(250);
    /** A follower that hears nothing for {@link MirroredRun#SILENCE} takes this instance for gone: well under it. */
    private static final Duration PING = Duration.ofSeconds(1);

    private final Notifications notifications;
    private final Function<String, Optional<AgentRun>> localRuns;
    private final Function<AgentEvent, String> wireForm;
    /** By conversation and following instance. */
    private final Map<String, Relay> relays = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /**
     * @param localRuns the running (or last) turn of a conversation held here
     * @param wireForm  an event as the API streams it (one line of JSON)
     */
    Relays(Notifications notifications, Function<String, Optional<AgentRun>> localRuns, Function<AgentEvent, String> wireForm) {
        this.notifications = notifications;
        this.localRuns = localRuns;
        this.wireForm = wireForm;
    }

    /**
     * Relays what {@code request} asks for if the conversation's turn runs (or last ran) here, on a thread of its
     * own; a relay of the same conversation to the same instance stops (the request replaces it), unless it is for
     * a newer stream: an instance sends its requests through different sessions, so they may arrive out of order.
     */
    void start(FollowRequest request) {
        Optional<AgentRun> run = localRuns.apply(request.conversationId());
        if (run.isEmpty() || closed) {
            return;
        }
        String key = request.conversationId() + " " + request.inbox();
        Relay relay = new Relay(key, request, run.get().events());
        if (relays.merge(key, relay, (running, asked) -> running.request.stream() > asked.request.stream() ? running : asked) != relay) {
            return;
        }
        Thread.ofVirtual().name("fleet-relay-" + request.conversationId()).start(() -> {
            try {
                relay.run();
            } finally {
                relays.remove(key, relay);
            }
        });
    }

    @Override
    public void close() {
        closed = true;
    }

    /** Relays while it is the relay of its conversation and following instance: a newer request replaces it. */
    private final class Relay {

        private final String key;
        private final FollowRequest request;
        private final RunEventLog events;

        Relay(String key, FollowRequest request, RunEventLog events) {
            this.key = key;
            this.request = request;
            this.events = events;
        }

        /** Sends the run's events after the request's id, until its last ({@code none}: the follower had them all). */
        void run() {
            try {
                if (events.read(request.afterId()).over()) {
                    send(List.of(RelayMessages.word(request.stream(), RelayMessages.NONE)));
                    return;
                }
                send(List.of(RelayMessages.word(request.stream(), RelayMessages.HELLO)));
                long last = request.afterId();
                long quietSince = System.nanoTime();
                while (relays.get(key) == this && !closed) {
                    RunEventLog.Read read = events.read(last, POLL);
                    if (!read.frames().isEmpty()) {
                        List<String> messages = new ArrayList<>();
                        for (RunEventLog.Frame frame : read.frames()) {
                            messages.addAll(RelayMessages.frame(request.stream(), frame.id(), wireForm.apply(frame.event())));
                            last = frame.id();
                        }
                        send(messages);
                        quietSince = System.nanoTime();
                    } else if (read.finished()) {
                        send(List.of(RelayMessages.word(request.stream(), RelayMessages.END)));
                        return;
                    } else if (System.nanoTime() - quietSince > PING.toNanos()) {
                        send(List.of(RelayMessages.word(request.stream(), RelayMessages.PING)));
                        quietSince = System.nanoTime();
                    }
                }
            } catch (StoreException e) {
                // The follower hears nothing more, takes this instance for gone and its clients come back.
                log.debug("fleet: relay of {} to {} stopped: {}", request.conversationId(), request.inbox(), e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        private void send(List<String> messages) {
            notifications.publish(request.inbox(), messages);
        }
    }
}
