package dev.skillforge.server.search;

/** A matched word (or phrase) in a shown text: {@code [start, end)} in UTF-16 code units, as JavaScript indexes a string. */
public record Highlight(int start, int end) {

    public Highlight {
        if (start < 0 || end <= start) {
            throw new IllegalArgumentException("a highlight is [start, end) with 0 <= start < end, was [" + start + ", " + end + ")");
        }
    }
}
