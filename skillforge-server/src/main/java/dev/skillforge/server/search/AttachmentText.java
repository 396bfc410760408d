package dev.skillforge.server.search;

/**
 * The extracted text of a document from what the model reads of it: {@code Attachment.wrap}'s
 * {@code <document name="…" type="…">} line and closing tag taken off, so that the wrapping's words find nothing.
 * The PostgreSQL migration V11 unwraps it the same way in SQL ({@code attachment_search_text}), and SQLite's in its
 * triggers.
 */
final class AttachmentText {

    private static final String OPEN = "<document ";
    private static final String CLOSE = "</document>\n\n";

    private AttachmentText() {
    }

    /** The text inside the wrapping; a text that is not wrapped so (or only its start, cut short) as far as it goes. */
    static String inner(String promptText) {
        if (!promptText.startsWith(OPEN)) {
            return promptText;
        }
        int head = promptText.indexOf('>'); // the name and type are escaped: their own '>' is "&gt;"
        int end = promptText.endsWith(CLOSE) ? promptText.length() - CLOSE.length() : promptText.length();
        return head < 0 || head + 1 > end ? "" : promptText.substring(head + 1, end);
    }
}
