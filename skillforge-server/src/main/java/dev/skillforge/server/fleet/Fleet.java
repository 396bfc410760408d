package dev.skillforge.server.fleet;

import dev.skillforge.core.agent.AgentEvent;
import dev.skillforge.server.conversation.OtherInstances;
import dev.skillforge.server.conversation.RunElsewhere;
import dev.skillforge.server.run.AgentRun;
import dev.skillforge.server.store.Notifications;
import dev.skillforge.server.store.StoreException;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Stop and follow a turn from any instance: a request for a turn that runs on another instance reaches it through
 * the database ({@link Notifications}, PostgreSQL's {@code LISTEN}/{@code NOTIFY}), so a client behind a round-robin
 * balancer can stop and re-attach wherever its request lands.
 *
 * <p>Every instance listens on one session of its own ({@link FleetListener}), to two channels: {@value #CHANNEL},
 * shared by the fleet, for {@code stop ID} (the instance running the turn stops it) and follow requests
 * ({@link FollowRequest}: the instance running the turn, or that ran it last, relays its events, {@link Relays});
 * and its own channel, where relays send it the events of the turns its clients follow ({@link RelayMessages}),
 * which it hands out in memory to each of them ({@link FollowedRuns}). However many clients follow, an instance holds
 * that one session and its pool; a turn followed here is relayed once, whatever the number of its followers.
 */
public final class Fleet implements OtherInstances, AutoCloseable {

    static final String CHANNEL = "skillforge_fleet";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Notifications notifications;
    private final Consumer<String> localStop;
    private final Relays relays;
    private final FollowedRuns followed;
    private final FleetListener listener;

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
        this.localStop = localStop;
        String inbox = "skillforge_inbox_" + HexFormat.of().formatHex(randomBytes());
        this.relays = new Relays(notifications, localRuns, wireForm);
        this.followed = new FollowedRuns(notifications, CHANNEL, inbox);
        this.listener = new FleetListener(notifications, List.of(CHANNEL, inbox), new FleetListener.Handler() {
            @Override
            public void message(Notifications.Notification notification) {
                if (notification.channel().equals(inbox)) {
                    followed.accept(notification.payload());
                } else {
                    handle(notification.payload());
                }
            }

            @Override
            public void lost() {
                followed.listeningLost();
            }

            @Override
            public void listening() {
                followed.listening();
            }
        });
    }

    /** Asks the instance that runs a turn of {@code conversationId} to stop it. @throws StoreException when the database fails */
    @Override
    public void requestStop(String conversationId) {
        notifications.publish(CHANNEL, "stop " + conversationId);
    }

    /**
     * Follows a turn of {@code conversationId} that another instance runs (or just ran), from the event after
     * {@code afterId}.
     *
     * @return the events, or empty when no instance answered within {@code answerWait}, or the follower had seen them all
     * @throws StoreException when the database fails
     */
    @Override
    public Optional<RunElsewhere> follow(String conversationId, long afterId, Duration answerWait) {
        return followed.follow(conversationId, afterId, answerWait);
    }

    /** A message on the fleet's channel. */
    private void handle(String message) {
        if (message.startsWith("stop ")) {
            localStop.accept(message.substring("stop ".length()));
        } else {
            FollowRequest.parse(message).ifPresent(relays::start);
        }
    }

    private static byte[] randomBytes() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return bytes;
    }

    @Override
    public void close() {
        listener.close();
        relays.close();
    }
}
