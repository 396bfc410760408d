package dev.skillforge.core.transcript;

import java.util.Objects;

/**
 * A file attached to a user message: a document or an image. The file itself is stored once per conversation under
 * its SHA-256 ({@code sha256}, lowercase hex). What the model reads of a document is {@code promptText}: its extracted
 * text wrapped by {@link #wrap}, computed once when it was uploaded and stored, so that every later request carries
 * exactly the same bytes (docs/design.md, the cache invariant). An image is seen, not read: its {@code promptText} is
 * empty and {@code image} holds the bytes every request sends.
 *
 * @param size  the file's size in bytes
 * @param image the image the model sees, or {@code null} for a document
 */
public record Attachment(String sha256, String name, String mediaType, long size, String promptText, Image image) {

    public Attachment {
        Objects.requireNonNull(sha256, "sha256");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(mediaType, "mediaType");
        Objects.requireNonNull(promptText, "promptText");
        if (size < 0) {
            throw new IllegalArgumentException("size must not be negative, was " + size);
        }
        if (image != null && !promptText.isEmpty()) {
            throw new IllegalArgumentException("an image has no prompt text: the model sees it");
        }
    }

    /** A document: what the model reads of it is {@code promptText}. */
    public Attachment(String sha256, String name, String mediaType, long size, String promptText) {
        this(sha256, name, mediaType, size, promptText, null);
    }

    /** An image the model sees: {@code mediaType} is the type its bytes are in. */
    public static Attachment image(String sha256, String name, String mediaType, long size, Image image) {
        return new Attachment(sha256, name, mediaType, size, "", Objects.requireNonNull(image, "image"));
    }

    public boolean isImage() {
        return image != null;
    }

    /**
     * An attached image as every request sends it: its size in pixels (read from its header) and its bytes in standard
     * base64, padded, encoded once, so that each request carries the same characters.
     */
    public record Image(int width, int height, String base64) {

        /** A long edge past this is scaled down by the providers before the model sees it (Anthropic's documented 1568). */
        static final int SEEN_LONG_EDGE = 1568;
        /** Tokens an image costs at most once scaled (Anthropic's "about 1,600"; OpenAI's and Gemini's tiles cost less). */
        static final int MAX_TOKENS = 1600;

        public Image {
            Objects.requireNonNull(base64, "base64");
            if (width < 1 || height < 1) {
                throw new IllegalArgumentException("an image is at least 1x1 pixels, was " + width + "x" + height);
            }
        }

        /**
         * About how many tokens the model reads for it: Anthropic's documented (width x height) / 750 after the long edge
         * is scaled to {@value #SEEN_LONG_EDGE}, at most {@value #MAX_TOKENS}; an estimate for the context window.
         */
        public int tokens() {
            double scale = Math.min(1.0, (double) SEEN_LONG_EDGE / Math.max(width, height));
            double pixels = (width * scale) * (height * scale);
            return (int) Math.min(MAX_TOKENS, Math.max(1, Math.ceil(pixels / 750)));
        }

        /** Without the bytes: they would flood a log line or a test failure. */
        @Override
        public String toString() {
            return "Image[" + width + "x" + height + ", " + base64.length() + " base64 characters]";
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
