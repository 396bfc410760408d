package dev.skillforge.core.agent;

import dev.skillforge.core.transcript.StorableText;

/**
 * Re-chunks streamed text so that no chunk ends inside a surrogate pair: a provider may split an
 * emoji between two chunks (its two halves as JSON escapes in two events), and each half alone cannot
 * be encoded in UTF-8 (it would reach the client as {@code ?}). A trailing high surrogate is held
 * back and put in front of the next chunk. The chunks given out are {@link StorableText#clean} text,
 * so together they are exactly the stored text.
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
        return StorableText.clean(joined);
    }

    /** What is still held back at the end of the stream (a high surrogate that never got its pair, cleaned), or "". */
    String rest() {
        String rest = heldBack == 0 ? "" : StorableText.clean(String.valueOf(heldBack));
        heldBack = 0;
        return rest;
    }
}
