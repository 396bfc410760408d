package dev.skillforge.server.search;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;

/** The passages a result shows: which of a conversation's matching texts, and where in each. */
public final class Snippets {

    /** Passages per result: enough to show where each of a few terms is, few enough for a list. */
    public static final int MAX_PER_RESULT = 3;

    private Snippets() {
    }

    /**
     * Up to {@link #MAX_PER_RESULT} passages from {@code sources}, chosen one by one as the text that adds the most
     * terms not shown yet (then the most terms, then the earliest), and given in the conversation's order. A text in
     * which the terms are not found (the database's index and these rules disagree on it) gives none.
     */
    public static List<Snippet> of(SearchQuery query, List<SearchSource> sources) {
        List<Found> found = new ArrayList<>();
        for (SearchSource source : sources) {
            List<Matches.Span> spans = Matches.find(source.text(), query.terms());
            if (!spans.isEmpty()) {
                BitSet terms = new BitSet();
                spans.forEach(span -> terms.set(span.term()));
                found.add(new Found(source, spans, terms));
            }
        }
        found.sort(Comparator.comparingInt((Found f) -> f.source().seq()).thenComparingInt(f -> order(f.source())));
        List<Found> chosen = new ArrayList<>();
        BitSet shown = new BitSet();
        while (chosen.size() < MAX_PER_RESULT && !found.isEmpty()) {
            Found next = found.getFirst();
            for (Found candidate : found) {
                if (gain(candidate, shown) > gain(next, shown)
                        || gain(candidate, shown) == gain(next, shown) && candidate.terms().cardinality() > next.terms().cardinality()) {
                    next = candidate;
                }
            }
            found.remove(next);
            chosen.add(next);
            shown.or(next.terms());
        }
        chosen.sort(Comparator.comparingInt((Found f) -> f.source().seq()).thenComparingInt(f -> order(f.source())));
        return chosen.stream().map(Snippets::snippet).toList();
    }

    /** Where the title has the terms (empty when it has none, or there is no title). */
    public static List<Highlight> inTitle(SearchQuery query, String title) {
        if (title == null) {
            return List.of();
        }
        return Matches.find(title, query.terms()).stream().map(span -> new Highlight(span.start(), span.end())).toList();
    }

    private record Found(SearchSource source, List<Matches.Span> spans, BitSet terms) {
    }

    /** How many terms {@code found} has that {@code shown} has not. */
    private static int gain(Found found, BitSet shown) {
        BitSet added = (BitSet) found.terms().clone();
        added.andNot(shown);
        return added.cardinality();
    }

    /** Within one entry, its documents come first, in order, as the model reads them and the page shows them. */
    private static int order(SearchSource source) {
        return source.position() >= 0 ? source.position() : Integer.MAX_VALUE;
    }

    private static Snippet snippet(Found found) {
        SearchSource source = found.source();
        Passage passage = Passage.around(source.text(), found.spans());
        return new Snippet(source.seq(), source.kind(), source.name(), source.sha256(), passage.text(), passage.matches());
    }
}
