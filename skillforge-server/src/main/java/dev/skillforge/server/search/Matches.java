package dev.skillforge.server.search;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Where the terms of a query are in a text: the same rule the databases' indexes follow ({@link SearchQuery}). */
final class Matches {

    private Matches() {
    }

    /**
     * One match: {@code text[start, end)}, the whole words it covers (a word matched by its start is marked whole),
     * and the index of the term it matches.
     */
    record Span(int start, int end, int term) {
    }

    /** Every match of every term in {@code text}, by position, none overlapping another (the earlier, then the longer, wins). */
    static List<Span> find(String text, List<SearchQuery.Term> terms) {
        List<int[]> words = words(text);
        List<Span> found = new ArrayList<>();
        for (int w = 0; w < words.size(); w++) {
            for (int t = 0; t < terms.size(); t++) {
                List<String> termWords = terms.get(t).words();
                if (w + termWords.size() <= words.size() && matchesAt(text, words, w, termWords)) {
                    found.add(new Span(words.get(w)[0], words.get(w + termWords.size() - 1)[1], t));
                }
            }
        }
        found.sort(Comparator.comparingInt(Span::start).thenComparing(Comparator.comparingInt(Span::end).reversed()));
        List<Span> apart = new ArrayList<>();
        for (Span span : found) {
            if (apart.isEmpty() || span.start() >= apart.getLast().end()) {
                apart.add(span);
            }
        }
        return apart;
    }

    /** Whether the words from {@code first} on are {@code termWords}: all but the last whole, the last by its start. */
    private static boolean matchesAt(String text, List<int[]> words, int first, List<String> termWords) {
        for (int k = 0; k < termWords.size(); k++) {
            int[] word = words.get(first + k);
            if (!Words.matches(text, word[0], word[1], termWords.get(k), k < termWords.size() - 1)) {
                return false;
            }
        }
        return true;
    }

    /** The words of {@code text}, each as {@code [start, end)}. */
    private static List<int[]> words(String text) {
        List<int[]> words = new ArrayList<>();
        int i = 0;
        while (i < text.length()) {
            int cp = text.codePointAt(i);
            if (Words.isWordChar(cp)) {
                int start = i;
                while (i < text.length() && Words.isWordChar(text.codePointAt(i))) {
                    i += Character.charCount(text.codePointAt(i));
                }
                words.add(new int[] {start, i});
            } else {
                i += Character.charCount(cp);
            }
        }
        return words;
    }
}
