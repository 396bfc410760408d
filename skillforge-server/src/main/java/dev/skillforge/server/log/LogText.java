package dev.skillforge.server.log;

/**
 * Text made safe for one log line. A log line quotes what others wrote (a command line, a path, a
 * provider's answer, an exception message): a line break in it would forge a log line of its own,
 * and a terminal control sequence would act on whoever reads the log. So every control character
 * (C0, DEL and C1, which holds NEL U+0085), the Unicode line and paragraph separators (U+2028,
 * U+2029) and the bidirectional controls that reorder what a line shows (U+202A to U+202E, U+2066
 * to U+2069) are written as escapes: {@code \n}, {@code \r}, {@code \t}, the others as
 * {@code \}{@code uXXXX}. Everything else is left as it is. And a line quotes at most {@value #MAX_CHARS} characters of
 * a message: what others wrote can be megabytes long (an MCP client's name was 8 MB), and a log is read, kept and
 * shipped line by line.
 */
final class LogText {

    static final int MAX_CHARS = 4096;

    private LogText() {
    }

    /** {@code text} {@link #escape escaped}, after its first {@value #MAX_CHARS} characters are kept and the rest counted. */
    public static String forLine(String text) {
        if (text == null || text.length() <= MAX_CHARS) {
            return escape(text);
        }
        int end = Character.isHighSurrogate(text.charAt(MAX_CHARS - 1)) ? MAX_CHARS - 1 : MAX_CHARS;
        return escape(text.substring(0, end)) + "… (" + (text.length() - end) + " more characters)";
    }

    /** {@code text} with the characters above escaped; {@code null} stays {@code null}. */
    public static String escape(String text) {
        if (text == null) {
            return null;
        }
        int first = 0;
        while (first < text.length() && !needsEscape(text.charAt(first))) {
            first++;
        }
        if (first == text.length()) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length() + 16).append(text, 0, first);
        for (int i = first; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!needsEscape(c)) {
                out.append(c);
            } else if (c == '\n') {
                out.append("\\n");
            } else if (c == '\r') {
                out.append("\\r");
            } else if (c == '\t') {
                out.append("\\t");
            } else {
                out.append(String.format("\\u%04x", (int) c));
            }
        }
        return out.toString();
    }

    static boolean needsEscape(char c) {
        return Character.isISOControl(c) || c == '\u2028' || c == '\u2029'
                || (c >= '\u202A' && c <= '\u202E') || (c >= '\u2066' && c <= '\u2069');
    }
}
