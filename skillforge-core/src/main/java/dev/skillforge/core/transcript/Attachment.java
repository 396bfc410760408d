package dev.skillforge.core.transcript;

import java.util.Objects;

/**
 * A document attached to a user message. The file itself is stored once per conversation under its
 * SHA-256 ({@code sha256}, lowercase hex); what the model reads of it is {@code promptText}: its
 * extracted text wrapped by {@link #wrap}, computed once when it was uploaded and stored, so that every
 * later request carries exactly the same bytes (docs/design.md, the cache invariant).
 *
 * @param size the file's size in bytes
 */
public record Attachment(String sha256, String name, String mediaType, long size, String promptText) {

    public Attachment {
        Objects.requireNonNull(sha256, "sha256");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(mediaType, "mediaType");
        Objects.requireNonNull(promptText, "promptText");
        if (size < 0) {
            throw new IllegalArgumentException("size must not be negative, was " + size);
        }
    }

    /**
     * The fixed wrapping of an attachment's text in the prompt (documented in docs/api.md):
     * <pre>{@code
     * <document name="notes.pdf" type="application/pdf">
     * …the extracted text…
     * </document>
     *
     * }</pre>
     * The name and type are escaped as XML attribute values; the text is taken as it is, ending with
     * one line break.
     */
    public static String wrap(String name, String mediaType, String text) {
        StringBuilder out = new StringBuilder(text.length() + name.length() + 64)
                .append("<document name=\"").append(escape(name)).append("\" type=\"").append(escape(mediaType)).append("\">\n")
                .append(text);
        if (!text.endsWith("\n")) {
            out.append('\n');
        }
        return out.append("</document>\n\n").toString();
    }

    private static String escape(String value) {
        StringBuilder out = new StringBuilder(value.length());
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }
}
