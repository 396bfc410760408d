package dev.skillforge.server.search;

import java.util.List;

/**
 * Where a conversation matched: a passage of one of its texts with the matched words marked.
 *
 * @param seq     the entry's sequence number, as the conversation's snapshot numbers its entries (a document's: its message's)
 * @param kind    {@code user} (a message), {@code assistant} (an answer), {@code tool} (command output) or {@code attachment}
 * @param name    the document's file name for an attachment, else {@code null}
 * @param sha256  the document's SHA-256 for an attachment, else {@code null}
 * @param text    the passage ({@link Passage})
 * @param matches where the matched words are in {@code text}
 */
public record Snippet(int seq, String kind, String name, String sha256, String text, List<Highlight> matches) {

    public Snippet {
        matches = List.copyOf(matches);
    }
}
