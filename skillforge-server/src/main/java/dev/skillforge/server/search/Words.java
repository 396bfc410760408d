package dev.skillforge.server.search;

/**
 * What a word is, the same for the query, the snippets and the databases' indexes: a run of letters, digits and
 * private-use characters (Unicode's categories L*, N* and Co, the default token characters of SQLite's
 * {@code unicode61} tokenizer; PostgreSQL's index sees the same runs once its migration has turned punctuation into
 * spaces). Everything else separates words. Words compare case aside, code point by code point.
 */
final class Words {

    private Words() {
    }

    static boolean isWordChar(int codePoint) {
        return switch (Character.getType(codePoint)) {
            case Character.UPPERCASE_LETTER, Character.LOWERCASE_LETTER, Character.TITLECASE_LETTER, Character.MODIFIER_LETTER,
                 Character.OTHER_LETTER, Character.DECIMAL_DIGIT_NUMBER, Character.LETTER_NUMBER, Character.OTHER_NUMBER,
                 Character.PRIVATE_USE -> true;
            default -> false;
        };
    }

    /** {@code word} in lower case, code point by code point (so lengths and offsets stay as they were). */
    static String lower(String word) {
        StringBuilder out = new StringBuilder(word.length());
        word.codePoints().forEach(cp -> out.appendCodePoint(Character.toLowerCase(cp)));
        return out.toString();
    }

    /**
     * Whether {@code text[start, end)} begins with {@code lowerWord} (already {@link #lower lower case}), case aside,
     * and, when {@code whole}, is exactly it.
     */
    static boolean matches(String text, int start, int end, String lowerWord, boolean whole) {
        int i = start;
        int j = 0;
        while (j < lowerWord.length()) {
            if (i >= end) {
                return false;
            }
            int cp = text.codePointAt(i);
            int expected = lowerWord.codePointAt(j);
            if (Character.toLowerCase(cp) != expected) {
                return false;
            }
            i += Character.charCount(cp);
            j += Character.charCount(expected);
        }
        return !whole || i == end;
    }
}
