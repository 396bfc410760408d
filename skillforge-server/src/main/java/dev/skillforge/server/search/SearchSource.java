package dev.skillforge.server.search;

import java.util.Objects;

/**
 * A text of a conversation that the database found a term in: an entry's text, or a document attached to a user
 * entry.
 *
 * @param seq      the entry's sequence number in the conversation (a document's: its message's)
 * @param position a document's place among its message's attachments (0, 1, …); -1 for the entry's own text
 * @param kind     {@code user}, {@code assistant}, {@code tool} or {@code attachment}
 * @param name     a document's file name, else {@code null}
 * @param sha256   a document's SHA-256, else {@code null}
 * @param text     what is searched: the entry's text, or the document's name, a line break and its extracted text
 */
public record SearchSource(int seq, int position, String kind, String name, String sha256, String text) {

    public static final String ATTACHMENT = "attachment";

    public SearchSource {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(text, "text");
    }

    /** An entry's own text. */
    public static SearchSource entry(int seq, String kind, String text) {
        return new SearchSource(seq, -1, kind, null, null, text);
    }

    /** A document attached to entry {@code seq}, from what the model reads of it ({@code promptText}). */
    public static SearchSource attachment(int seq, int position, String name, String sha256, String promptText) {
        return new SearchSource(seq, position, ATTACHMENT, name, sha256, name + "\n" + AttachmentText.inner(promptText));
    }
}
