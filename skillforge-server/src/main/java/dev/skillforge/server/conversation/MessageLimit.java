package dev.skillforge.server.conversation;

/**
 * The one size limit of a new user message, whichever door brings it: a conversation's
 * {@code /messages}, {@code /api/agent} with a {@code conversationId} or without one (its last
 * message), or any other caller of {@link Turns#startTurn}.
 */
public final class MessageLimit {

    /** 1 MiB of UTF-8. */
    public static final int MAX_BYTES = 1024 * 1024;

    private MessageLimit() {
    }

    /**
     * @throws ConversationException of kind {@link ConversationException.Kind#TOO_LARGE} when
     *                               {@code message} is over {@link #MAX_BYTES} bytes as UTF-8
     */
    public static void check(String message) {
        if (message.length() * 3L <= MAX_BYTES) {
            return; // no UTF-16 char takes more than 3 bytes (a surrogate pair takes 4 for 2 chars)
        }
        long bytes = utf8Length(message);
        if (bytes > MAX_BYTES) {
            throw new ConversationException(ConversationException.Kind.TOO_LARGE, "The message is " + bytes
                    + " bytes of UTF-8; the limit is " + MAX_BYTES + " bytes (1 MiB)");
        }
    }

    private static long utf8Length(String text) {
        long bytes = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }
}
