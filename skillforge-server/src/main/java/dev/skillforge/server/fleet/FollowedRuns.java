package dev.skillforge.server.fleet;

import dev.skillforge.server.conversation.RunElsewhere;
import dev.skillforge.server.store.Notifications;
import dev.skillforge.server.store.StoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The side of an instance whose clients follow turns that other instances run: one {@link MirroredRun} per
 * conversation, asked for once on the fleet's channel and relayed to this instance's own channel, its events handed
 * out in memory to every client here that follows it. A client costs no database session of its own: the instance
 * listens on one, and asks through the pool.
 *
 * <p>A client that comes back from an earlier event than the run was asked from makes it ask again from there; when
 * this instance's listening session broke and is back, every run asks again after the last event it received, so
 * what was relayed meanwhile comes again and nothing is lost.
 */
final class FollowedRuns {

    private static final Logger log = LoggerFactory.getLogger(FollowedRuns.class);

    private final Notifications notifications;
    private final String channel;
    private final String inbox;
    // Guarded by this object's monitor; a run's own lock is taken inside it, never the other way round.
    private final Map<String, MirroredRun> byConversation = new HashMap<>();
    private final Map<Long, MirroredRun> byStream = new HashMap<>();
    private long lastStream;

    /**
     * @param channel the fleet's channel, where follow requests go
     * @param inbox   this instance's own channel, where relays answer
     */
    FollowedRuns(Notifications notifications, String channel, String inbox) {
        this.notifications = notifications;
        this.channel = channel;
        this.inbox = inbox;
    }

    /**
     * Follows the turn of {@code conversationId} that another instance runs (or just ran), from the event after
     * {@code afterId}.
     *
     * @return the events, or empty when no instance answered within {@code answerWait}, or there was nothing after {@code afterId}
     * @throws StoreException when the request cannot be sent
     */
    Optional<RunElsewhere> follow(String conversationId, long afterId, Duration answerWait) {
        MirroredRun run;
        FollowRequest request = null;
        synchronized (this) {
            run = byConversation.get(conversationId);
            if (run == null || run.ended()) {
                run = new MirroredRun(afterId, ++lastStream, System::nanoTime);
                byConversation.put(conversationId, run);
                request = new FollowRequest(conversationId, afterId, inbox, lastStream);
            } else if (!run.covers(afterId)) {
                byStream.remove(run.stream());
                run.restart(afterId, ++lastStream);
                request = new FollowRequest(conversationId, afterId, inbox, lastStream);
            }
            byStream.put(run.stream(), run);
            run.attach();
        }
        MirroredRun followed = run;
        RemoteRun client = new RemoteRun(followed, afterId, () -> leave(conversationId, followed));
        try {
            if (request != null) {
                ask(request, followed);
            }
            if (!followed.awaitAnswer(answerWait)) {
                client.close();
                return Optional.empty();
            }
            return Optional.of(client);
        } catch (InterruptedException e) {
            client.close();
            Thread.currentThread().interrupt();
            return Optional.empty();
        } catch (RuntimeException e) {
            client.close();
            throw e;
        }
    }

    private void ask(FollowRequest request, MirroredRun run) {
        try {
            notifications.publish(channel, request.message());
            run.asked(request.stream());
        } catch (StoreException e) {
            run.giveUp(request.stream());
            throw e;
        }
    }

    /** A client stopped following: the last one to leave a run lets it go (its relay runs out with the turn). */
    private synchronized void leave(String conversationId, MirroredRun run) {
        if (run.detach() == 0) {
            byConversation.remove(conversationId, run);
            byStream.remove(run.stream(), run);
        }
    }

    /** A message on this instance's own channel, from a relay. */
    void accept(String payload) {
        Optional<RelayMessages.Received> message = RelayMessages.Received.parse(payload);
        if (message.isEmpty()) {
            log.debug("fleet: a message of {} characters that is not a relay's", payload.length());
            return;
        }
        MirroredRun run;
        synchronized (this) {
            run = byStream.get(message.get().stream());
        }
        if (run != null) {
            run.accept(message.get().stream(), message.get().body());
        }
    }

    /** This instance's listening session broke: its runs wait instead of taking the silence for the other instance's. */
    synchronized void listeningLost() {
        byConversation.values().forEach(MirroredRun::listeningLost);
    }

    /** This instance listens (again): every run still followed asks, on a new stream, after the last event it received. */
    void listening() {
        Map<FollowRequest, MirroredRun> requests = new LinkedHashMap<>();
        synchronized (this) {
            byConversation.forEach((conversationId, run) -> {
                if (!run.ended()) {
                    byStream.remove(run.stream());
                    long afterId = run.resume(++lastStream);
                    byStream.put(lastStream, run);
                    requests.put(new FollowRequest(conversationId, afterId, inbox, lastStream), run);
                }
            });
        }
        requests.forEach((request, run) -> {
            try {
                ask(request, run);
            } catch (StoreException e) {
                // Its clients come back, and ask again.
                log.debug("fleet: could not ask again for {}: {}", request.conversationId(), e.getMessage());
            }
        });
    }
}
