package dev.skillforge.server.search;

import java.util.ArrayList;
import java.util.List;

/**
 * A short passage of a text around its matches, for a list of results: at most {@link #MAX_CHARS} characters of the
 * text, cut at word boundaries, an ellipsis where it was cut, every run of white space (and control characters, which
 * command output may hold) shown as one space.
 *
 * @param text    the passage
 * @param matches where the matches are in it, in order
 */
record Passage(String text, List<Highlight> matches) {

    static final int MAX_CHARS = 160;
    private static final String ELLIPSIS = "…";

    /**
     * The passage of {@code text} that holds the most different terms within {@link #MAX_CHARS} characters (the first
     * such, when several do), with about a third of the room left before the matches and the rest after.
     *
     * @param spans the matches in {@code text} ({@link Matches#find}), at least one
     */
    static Passage around(String text, List<Matches.Span> spans) {
        int[] window = bestWindow(spans);
        int first = spans.get(window[0]).start();
        int lastEnd = Math.min(first + MAX_CHARS, spans.get(window[1] - 1).end());
        int spare = MAX_CHARS - (lastEnd - first);
        int start = Math.max(0, first - spare / 3);
        int end = Math.min(text.length(), start + MAX_CHARS);
        start = Math.max(0, Math.min(start, end - MAX_CHARS));
        start = snapStart(text, start, first);
        end = snapEnd(text, end, lastEnd);
        return build(text, start, end, spans);
    }

    /**
     * The spans {@code [from, to)} that fit in {@link #MAX_CHARS} from the first one's start and have the most
     * different terms among them: a sliding window, so a word found ten thousand times costs no more than a pass.
     */
    private static int[] bestWindow(List<Matches.Span> spans) {
        int terms = spans.stream().mapToInt(Matches.Span::term).max().orElse(0) + 1;
        int[] counts = new int[terms];
        int distinct = 0;
        int best = -1;
        int[] window = {0, 1};
        int to = 0;
        for (int from = 0; from < spans.size(); from++) {
            int limit = spans.get(from).start() + MAX_CHARS;
            if (to <= from) {
                to = from;
            }
            while (to < spans.size() && (to == from || spans.get(to).end() <= limit)) {
                if (counts[spans.get(to).term()]++ == 0) {
                    distinct++;
                }
                to++;
            }
            if (distinct > best) {
                best = distinct;
                window = new int[] {from, to};
            }
            if (--counts[spans.get(from).term()] == 0) {
                distinct--;
            }
        }
        return window;
    }

    /** Moves a cut start forward to just after a space (else after any separator) before {@code first}, so no word is cut. */
    private static int snapStart(String text, int start, int first) {
        if (start == 0) {
            return 0;
        }
        int separator = -1;
        for (int i = start; i < first; i += Character.charCount(text.codePointAt(i))) {
            int cp = text.codePointAt(i);
            if (Character.isWhitespace(cp)) {
                return i + Character.charCount(cp);
            }
            if (separator < 0 && !Words.isWordChar(cp)) {
                separator = i + Character.charCount(cp);
            }
        }
        if (separator >= 0) {
            return separator;
        }
        return atBoundary(text, start) ? start : first;
    }

    /** Moves a cut end back to a space (else a separator) after {@code lastEnd}, so no word is cut. */
    private static int snapEnd(String text, int end, int lastEnd) {
        if (end >= text.length()) {
            return text.length();
        }
        if (Character.isLowSurrogate(text.charAt(end))) {
            end--; // never half a character
        }
        if (atBoundary(text, end)) {
            return end;
        }
        int separator = -1;
        for (int i = end - 1; i >= lastEnd; i--) {
            char c = text.charAt(i);
            if (Character.isWhitespace(c)) {
                return i;
            }
            if (separator < 0 && !Character.isSurrogate(c) && !Words.isWordChar(c)) {
                separator = i;
            }
        }
        return separator >= 0 ? separator : lastEnd;
    }

    /** Whether a cut at {@code i} falls between two characters of which at most one is part of a word. */
    private static boolean atBoundary(String text, int i) {
        return i == 0 || i >= text.length() || !Words.isWordChar(text.codePointBefore(i)) || !Words.isWordChar(text.codePointAt(i));
    }

    private static Passage build(String text, int start, int end, List<Matches.Span> spans) {
        StringBuilder out = new StringBuilder(end - start + 2);
        if (start > 0) {
            out.append(ELLIPSIS);
        }
        int[] at = new int[end - start + 1]; // where each character of text[start, end] lands in out
        boolean space = false;
        for (int i = start; i < end; i++) {
            char c = text.charAt(i);
            boolean blank = Character.isWhitespace(c) || Character.isISOControl(c);
            if (blank) {
                space = out.length() > (start > 0 ? ELLIPSIS.length() : 0);
            } else if (space) {
                out.append(' ');
                space = false;
            }
            at[i - start] = out.length();
            if (!blank) {
                out.append(c);
            }
        }
        at[end - start] = out.length();
        List<Highlight> matches = new ArrayList<>();
        for (Matches.Span span : spans) {
            int from = Math.max(span.start(), start);
            int to = Math.min(span.end(), end);
            if (from < to) {
                matches.add(new Highlight(at[from - start], at[to - start]));
            }
        }
        if (end < text.length()) {
            out.append(ELLIPSIS);
        }
        return new Passage(out.toString(), matches);
    }
}
