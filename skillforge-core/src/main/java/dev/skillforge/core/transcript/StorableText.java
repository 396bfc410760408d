package dev.skillforge.core.transcript;

/** Text every store can hold verbatim: no NUL, no unpaired surrogate (each becomes U+FFFD). */
public final class StorableText {
    private StorableText() {
    }

    /** The index of the first NUL or unpaired surrogate, or -1. */
    public static int firstBad(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\0' || Character.isLowSurrogate(c)) {
                return i;
            }
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                    i++;
                    continue;
                }
                return i;
            }
        }
        return -1;
    }

    /** The longest start of {@code text} of at most {@code max} characters that does not end inside a surrogate pair. */
    public static String prefix(String text, int max) {
        if (text.length() <= max) {
            return text;
        }
        return text.substring(0, max > 0 && Character.isHighSurrogate(text.charAt(max - 1)) ? max - 1 : max);
    }

    /** {@code text}, or its {@link #prefix} of {@code max} characters followed by "…" when it is longer. */
    public static String abbreviate(String text, int max) {
        return text.length() <= max ? text : prefix(text, max) + "…";
    }

    public static String clean(String text) {
        int bad = firstBad(text);
        if (bad < 0) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length()).append(text, 0, bad);
        for (int i = bad; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                out.append(c).append(text.charAt(++i));
            } else if (c == '\0' || Character.isSurrogate(c)) {
                out.append('\uFFFD');
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
