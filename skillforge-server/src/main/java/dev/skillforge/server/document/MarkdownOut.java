package dev.skillforge.server.document;

/**
 * Markdown as it is written, line by line, within a length: every write is counted against it, so a page whose text
 * would be too long is refused before it is built. Line breaks asked for are written only when text follows them
 * (so blocks never start or end with blank lines), and every line inside a quote gets its {@code > } marks as it is
 * written, at most {@link DocumentLimits#MAX_QUOTE_DEPTH} of them: the cost of a quote does not grow with its depth.
 */
final class MarkdownOut {

    /** Where a write can be undone to: the length and the line state then. */
    record Mark(int length, int shallowest, boolean lineStarted, int pendingBreaks, long textWrites) {
    }

    private final StringBuilder out = new StringBuilder();
    private final int maxChars;
    private final String what;
    private int depth;
    /** The shallowest quote since the current line started: a blank line after it is marked as that quote. */
    private int shallowest;
    private boolean lineStarted;
    private int pendingBreaks;
    private long textWrites;

    /** @param what the page, as messages name it */
    MarkdownOut(int maxChars, String what) {
        this.maxChars = maxChars;
        this.what = what;
    }

    void openQuote() {
        depth++;
    }

    void closeQuote() {
        depth--;
        shallowest = Math.min(shallowest, depth);
    }

    /** Ends the current line, if it has anything on it. */
    void newLine() {
        if (lineStarted) {
            pendingBreaks = Math.max(pendingBreaks, 1);
        }
    }

    /** A blank line before whatever comes next (nothing at the very start). */
    void blankLine() {
        if (!out.isEmpty()) {
            pendingBreaks = 2;
        }
    }

    /** A line break as {@code <br>} makes it: one more, two at most in a row. */
    void lineBreak() {
        pendingBreaks = Math.min(2, pendingBreaks + 1);
    }

    /** Inline text: white space between words kept as one space, dropped at the start of a line. */
    void inline(String text) {
        if (text.isBlank()) {
            if (!atLineStart() && out.charAt(out.length() - 1) != ' ') {
                append(" ");
            }
            return;
        }
        write(atLineStart() ? text.stripLeading() : text);
    }

    /** Text as it is: its own line breaks are kept (code), each line marked as the quote it is in. */
    void write(String text) {
        int from = 0;
        while (true) {
            int end = text.indexOf('\n', from);
            String line = end < 0 ? text.substring(from) : text.substring(from, end);
            if (!line.isEmpty()) {
                startLine();
                append(line);
                if (!line.isBlank()) {
                    textWrites++;
                }
            }
            if (end < 0) {
                return;
            }
            startLine();
            append("\n");
            lineStarted = false;
            from = end + 1;
        }
    }

    Mark mark() {
        return new Mark(out.length(), shallowest, lineStarted, pendingBreaks, textWrites);
    }

    /** Whether anything but white space was written since {@code mark}. */
    boolean wroteTextSince(Mark mark) {
        return textWrites > mark.textWrites();
    }

    /** Undoes everything written since {@code mark}. */
    void undo(Mark mark) {
        out.setLength(mark.length());
        shallowest = mark.shallowest();
        lineStarted = mark.lineStarted();
        pendingBreaks = mark.pendingBreaks();
        textWrites = mark.textWrites();
    }

    /** The Markdown: no trailing spaces on a line, no more than one blank line in a row, nothing around it. */
    String text() {
        return out.toString().replaceAll("[ \\t]+\\n", "\n").replaceAll("\\n{3,}", "\n\n").strip();
    }

    private boolean atLineStart() {
        return !lineStarted || pendingBreaks > 0;
    }

    /** Writes the breaks asked for, a blank line marked as the shallowest quote since the last line, then the quote marks. */
    private void startLine() {
        if (pendingBreaks > 0 && lineStarted) {
            append("\n");
            lineStarted = false;
            pendingBreaks--;
        }
        for (; pendingBreaks > 0; pendingBreaks--) {
            append(quoteMarks(Math.min(shallowest, depth)));
            append("\n");
        }
        if (!lineStarted) {
            append(quoteMarks(depth));
            lineStarted = true;
            shallowest = depth;
        }
    }

    private static String quoteMarks(int depth) {
        return "> ".repeat(Math.min(depth, DocumentLimits.MAX_QUOTE_DEPTH));
    }

    private void append(String s) {
        if (out.length() + s.length() > maxChars) {
            throw DocumentException.tooLarge(what + ": its text is longer than " + maxChars + " characters");
        }
        out.append(s);
    }
}
