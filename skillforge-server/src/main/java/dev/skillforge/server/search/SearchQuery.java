package dev.skillforge.server.search;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A search as a person typed it, made into terms: each a word, or a phrase (words in a row). A conversation is
 * found when every term is somewhere in it (its title, a message, an answer, a command's output, an attached
 * document's text or name). A word matches the start of a word ("brew" finds "Brewing"), case aside; a phrase
 * matches its words in a row, the last as the start of a word.
 *
 * <p>Words are runs of letters and digits ({@link Words}); everything else only separates them, so nothing typed
 * is ever a wildcard or an operator: {@code %}, {@code _}, {@code *}, {@code (} are taken as the punctuation they
 * are. Text in double quotes is a phrase (an unclosed quote runs to the end), and so is a run of words joined by
 * punctuation without spaces ({@code snake_case}, {@code example.com}, {@code 3.14}), which finds that text as
 * written.
 *
 * @param text  what was typed
 * @param terms at least one, at most {@link #MAX_TERMS}, without repeats
 */
public record SearchQuery(String text, List<Term> terms) {

    /** The longest query, in characters. */
    public static final int MAX_CHARS = 200;
    /** The most terms (a phrase counts once) and words in all: each costs the database an index look-up. */
    public static final int MAX_TERMS = 8;
    public static final int MAX_WORDS = 16;

    public SearchQuery {
        Objects.requireNonNull(text, "text");
        terms = List.copyOf(terms);
        if (terms.isEmpty()) {
            throw new IllegalArgumentException("a query has at least one term");
        }
    }

    /** A word (one) or a phrase (several), each in lower case and made of word characters only. */
    public record Term(List<String> words) {
        public Term {
            words = List.copyOf(words);
            if (words.isEmpty()) {
                throw new IllegalArgumentException("a term has at least one word");
            }
        }

        public boolean isPhrase() {
            return words.size() > 1;
        }
    }

    /** A query that cannot be searched; the message says why and what to send instead. */
    public static final class InvalidQueryException extends RuntimeException {
        private final boolean noWord;

        InvalidQueryException(String message) {
            this(message, false);
        }

        private InvalidQueryException(String message, boolean noWord) {
            super(message);
            this.noWord = noWord;
        }

        /** Whether the query was refused only for having no word (empty, or punctuation alone): it finds nothing. */
        public boolean noWord() {
            return noWord;
        }
    }

    /**
     * The terms of {@code text}.
     *
     * @throws InvalidQueryException when it is empty, over {@link #MAX_CHARS} characters, has no word at all (only
     *                               punctuation), or more than {@link #MAX_TERMS} terms or {@link #MAX_WORDS} words
     */
    public static SearchQuery parse(String text) {
        if (text == null || text.isBlank()) {
            throw new InvalidQueryException("q is empty: give at least one word to search for", true);
        }
        if (text.length() > MAX_CHARS) {
            throw new InvalidQueryException("q is " + text.length() + " characters; the limit is " + MAX_CHARS);
        }
        Set<Term> terms = new LinkedHashSet<>();
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '"') {
                int close = text.indexOf('"', i + 1);
                int end = close < 0 ? text.length() : close;
                addTerm(terms, text.substring(i + 1, end));
                i = end + 1;
            } else if (Character.isWhitespace(c)) {
                i++;
            } else {
                int end = i;
                while (end < text.length() && !Character.isWhitespace(text.charAt(end)) && text.charAt(end) != '"') {
                    end++;
                }
                addTerm(terms, text.substring(i, end));
                i = end;
            }
        }
        if (terms.isEmpty()) {
            throw new InvalidQueryException("q has no word: search looks for words (letters and digits), and '"
                    + text.strip() + "' has only punctuation or symbols", true);
        }
        if (terms.size() > MAX_TERMS) {
            throw new InvalidQueryException("q has " + terms.size() + " terms; the limit is " + MAX_TERMS + " (a phrase in quotes counts once)");
        }
        int words = terms.stream().mapToInt(term -> term.words().size()).sum();
        if (words > MAX_WORDS) {
            throw new InvalidQueryException("q has " + words + " words; the limit is " + MAX_WORDS);
        }
        return new SearchQuery(text, new ArrayList<>(terms));
    }

    /** The words of {@code piece} as one term (a phrase when there are several); nothing when it has none. */
    private static void addTerm(Set<Term> terms, String piece) {
        List<String> words = new ArrayList<>();
        int i = 0;
        while (i < piece.length()) {
            int start = i;
            while (i < piece.length() && Words.isWordChar(piece.codePointAt(i))) {
                i += Character.charCount(piece.codePointAt(i));
            }
            if (i > start) {
                words.add(Words.lower(piece.substring(start, i)));
            } else {
                i += Character.charCount(piece.codePointAt(i));
            }
        }
        if (!words.isEmpty()) {
            terms.add(new Term(words));
        }
    }
}
