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
