package dev.skillforge.core.shell;

import dev.skillforge.core.transcript.StorableText;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The text of a tool entry: one {@code $ command\nresult} block per command, blocks joined by a
 * blank line, each result cut to {@value #MAX_RESULT_CHARS} characters with a note saying how much
 * was cut. Deterministic: the same results always give the same text.
 */
public final class ToolOutputFormat {

    public static final int MAX_RESULT_CHARS = 2000;

    private ToolOutputFormat() {
    }

    public record Executed(String command, String result) {
    }

    public static String format(List<Executed> executed) {
        return executed.stream()
                .map(e -> "$ " + e.command() + "\n" + truncate(e.result(), MAX_RESULT_CHARS))
                .collect(Collectors.joining("\n\n"));
    }

    /** Cuts {@code text} to at most {@code max} characters (never inside a surrogate pair) and says how many were cut. */
    public static String truncate(String text, int max) {
        if (max < 1) {
            throw new IllegalArgumentException("max must be at least 1, was " + max);
        }
        if (text.length() <= max) {
            return text;
        }
        String kept = StorableText.prefix(text, max);
        return kept + "\n[truncated: " + (text.length() - kept.length()) + " more characters of " + text.length() + "]";
    }
}
