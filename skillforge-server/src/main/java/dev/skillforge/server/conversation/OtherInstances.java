package dev.skillforge.server.conversation;

import java.time.Duration;
import java.util.Optional;

/**
 * The other instances of a fleet, as {@link Turns} needs them: a turn recorded running on a conversation not held here
 * runs on one of them, and is stopped or followed there. Implemented by the fleet (through the database); a server
 * alone has none.
 */
public interface OtherInstances {

    /**
     * Asks whichever instance runs the conversation's turn to stop it; returns at once.
     *
     * @throws dev.skillforge.server.store.StoreException when the other instances cannot be reached
     */
    void requestStop(String conversationId);

    /**
     * Follows the turn another instance runs, from the event after {@code afterId}.
     *
     * @param answerWait how long the instance running it may take to answer
     * @return empty when no instance answered for the conversation (the turn ended, or its instance died)
     * @throws dev.skillforge.server.store.StoreException when the other instances cannot be reached
     */
    Optional<RunElsewhere> follow(String conversationId, long afterId, Duration answerWait);
}
