package dev.skillforge.core.agent;

/**
 * Re-chunks streamed text so that no chunk ends inside a surrogate pair: a provider may split an
 * emoji between two chunks (its two halves as JSON escapes in two events), and each half alone cannot
 * be encoded in UTF-8 (it would reach the client as {@code ?}). A trailing high surrogate is held
 * back and put in front of the next chunk; nothing else changes.
 */
final class WholeCharacters {

    private char heldBack;

    /** The part of {@code chunk} (after what was held back) that can be given out now; may be empty. */
    String next(String chunk) {
        String joined = heldBack == 0 ? chunk : heldBack + chunk;
        heldBack = 0;
        if (!joined.isEmpty() && Character.isHighSurrogate(joined.charAt(joined.length() - 1))) {
            heldBack = joined.charAt(joined.length() - 1);
            joined = joined.substring(0, joined.length() - 1);
        }
        return joined;
    }

    /**
     * What is still held back at the end of the stream: a high surrogate that never got its pair,
     * given out as U+FFFD, the character the stored text has in its place ({@code StorableText}); or "".
     */
    String rest() {
        String rest = heldBack == 0 ? "" : "\uFFFD";
        heldBack = 0;
        return rest;
    }
}
