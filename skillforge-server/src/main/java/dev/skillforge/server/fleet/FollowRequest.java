package dev.skillforge.server.fleet;

import java.util.Optional;

/**
 * An instance asks, on the fleet's channel, for the events of a conversation's turn after {@code afterId}, to be
 * relayed to its own channel {@code inbox} as stream {@code stream}: {@code follow CONVERSATION AFTER INBOX STREAM}.
 * A new request from the same inbox for the same conversation replaces the one before (its stream is not sent on).
 */
record FollowRequest(String conversationId, long afterId, String inbox, long stream) {

    private static final String WORD = "follow";

    /** The request as published. */
    String message() {
        return WORD + " " + conversationId + " " + afterId + " " + inbox + " " + stream;
    }

    /** The request in a message of the fleet's channel, if it is one (and well formed). */
    static Optional<FollowRequest> parse(String message) {
        String[] words = message.split(" ");
        if (words.length != 5 || !words[0].equals(WORD)) {
            return Optional.empty();
        }
        try {
            return Optional.of(new FollowRequest(words[1], Long.parseLong(words[2]), words[3], Long.parseLong(words[4])));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
