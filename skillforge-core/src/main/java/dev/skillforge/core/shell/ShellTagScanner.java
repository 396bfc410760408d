package dev.skillforge.core.shell;

import java.util.ArrayList;
import java.util.List;

/**
 * Finds {@code <shell>…</shell>} commands in model output fed chunk by chunk, as it streams.
 *
 * <p>Each character is looked at once (O(n) over the whole output, nothing rescanned), so a tag
 * split anywhere across chunks is found exactly as in the unsplit text. The body of a tag is
 * stripped of surrounding whitespace; empty and whitespace-only tags are not commands. Text
 * outside tags is ignored (the caller keeps the output verbatim; this class only reads it). An
 * opening tag inside a body is literal text. A tag still open when the output ends is not a command
 * ({@link #insideTag()} tells the caller).
 */
public final class ShellTagScanner {

    private static final String OPEN = "<shell>";
    private static final String CLOSE = "</shell>";

    private final StringBuilder body = new StringBuilder();
    private boolean inside;
    /** How many characters of the tag we are looking for have matched so far. */
    private int matched;

    /** Reads the next chunk; returns the commands whose closing tag arrived in it, in order. */
    public List<String> feed(CharSequence chunk) {
        List<String> completed = new ArrayList<>(0);
        for (int i = 0; i < chunk.length(); i++) {
            char c = chunk.charAt(i);
            if (inside) {
                body.append(c);
                matched = advance(CLOSE, matched, c);
                if (matched == CLOSE.length()) {
                    body.setLength(body.length() - CLOSE.length());
                    String command = body.toString().strip();
                    if (!command.isEmpty()) {
                        completed.add(command);
                    }
                    body.setLength(0);
                    inside = false;
                    matched = 0;
                }
            } else {
                matched = advance(OPEN, matched, c);
                if (matched == OPEN.length()) {
                    inside = true;
                    matched = 0;
                }
            }
        }
        return completed;
    }

    /** True when an opening tag was read and its closing tag has not arrived (yet). */
    public boolean insideTag() {
        return inside;
    }

    /**
     * One step of matching {@code tag}. Both tags start with '&lt;' and contain no other '&lt;', so
     * after a mismatch the only possible restart is at the current character when it is '&lt;':
     * this keeps the matcher linear without a failure table.
     */
    private static int advance(String tag, int matchedSoFar, char c) {
        if (c == tag.charAt(matchedSoFar)) {
            return matchedSoFar + 1;
        }
        return c == tag.charAt(0) ? 1 : 0;
    }
}
