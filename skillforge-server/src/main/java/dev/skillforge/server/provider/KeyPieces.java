package dev.skillforge.server.provider;

import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where the configured key shows in a text, not only as it was configured: in another case (a gateway that upper-cases
 * what it echoes), with its vendor prefix gone ({@code sk-…} without {@code sk-}), or cut short. A key of
 * {@value #PIECE} characters or more is found by any {@value #PIECE} of its characters in a row, case aside, and the
 * whole run of key-like characters ({@code A-Z a-z 0-9 _ -}) around them is what is replaced; a shorter key is found
 * whole, case aside. Invisible characters inside a key are taken out of the text before it is searched
 * ({@link #visible}).
 */
final class KeyPieces {

    /** Twelve characters of a random key are as good as the key to whoever collects them. */
    static final int PIECE = 12;

    private final String key;
    private final Set<String> pieces = new HashSet<>();

    KeyPieces(String key) {
        this.key = lower(visible(key));
        for (int i = 0; i + PIECE <= this.key.length(); i++) {
            pieces.add(this.key.substring(i, i + PIECE));
        }
    }

    /** {@code text} with every showing of the key replaced by {@code replacement}. */
    String replaceIn(String text, String replacement) {
        if (pieces.isEmpty()) {
            return Pattern.compile(Pattern.quote(key), Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE).matcher(text)
                    .replaceAll(Matcher.quoteReplacement(replacement));
        }
        String lower = lower(text);
        StringBuilder out = new StringBuilder(text.length());
        int copied = 0;
        for (int i = 0; i + PIECE <= lower.length(); i++) {
            if (pieces.contains(lower.substring(i, i + PIECE))) {
                int start = i;
                while (start > copied && keyLike(text.charAt(start - 1))) {
                    start--;
                }
                int end = i + PIECE;
                while (end < text.length() && keyLike(text.charAt(end))) {
                    end++;
                }
                out.append(text, copied, start).append(replacement);
                copied = end;
                i = end - 1;
            }
        }
        return copied == 0 ? text : out.append(text, copied, text.length()).toString();
    }

    /**
     * {@code text} without its invisible characters (Unicode's format characters: zero-width spaces and joiners, the
     * byte order mark, soft hyphens, direction controls, tag characters; and the combining grapheme joiner), which an error message
     * needs none of and which hide a key from a search.
     */
    static String visible(String text) {
        if (text.codePoints().noneMatch(KeyPieces::invisible)) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length());
        text.codePoints().filter(c -> !invisible(c)).forEach(out::appendCodePoint);
        return out.toString();
    }

    private static boolean invisible(int c) {
        return Character.getType(c) == Character.FORMAT || c == '\u034F';
    }

    /** Lower case, one character for one, so positions stay those of the text. */
    private static String lower(String text) {
        char[] chars = text.toCharArray();
        for (int i = 0; i < chars.length; i++) {
            chars[i] = Character.toLowerCase(chars[i]);
        }
        return new String(chars);
    }

    private static boolean keyLike(char c) {
        return c < 128 && (Character.isLetterOrDigit(c) || c == '_' || c == '-');
    }
}
