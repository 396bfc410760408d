package dev.skillforge.server.search;

import dev.skillforge.core.transcript.Attachment;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

class SnippetsTest {

    /** The text with each match in [brackets], as a reader of the result sees the marks. */
    private static String marked(Snippet snippet) {
        StringBuilder out = new StringBuilder(snippet.text());
        for (Highlight match : snippet.matches().reversed()) {
            out.insert(match.end(), ']').insert(match.start(), '[');
        }
        return out.toString();
    }

    /** The text of the snippet's first match. */
    private static String firstMarked(Snippet snippet) {
        Highlight match = snippet.matches().getFirst();
        return snippet.text().substring(match.start(), match.end());
    }

    private static Snippet only(String query, String text) {
        List<Snippet> snippets = Snippets.of(SearchQuery.parse(query), List.of(SearchSource.entry(4, "assistant", text)));
        assertThat(snippets).hasSize(1);
        return snippets.getFirst();
    }

    @Test
    void aShortTextIsShownWholeWithTheWholeWordsMarked() {
        Snippet snippet = only("brew", "Brewing cold brew takes\n\n  twelve hours.");

        assertThat(marked(snippet)).isEqualTo("[Brewing] cold [brew] takes twelve hours.");
        assertThat(snippet.seq()).isEqualTo(4);
        assertThat(snippet.kind()).isEqualTo("assistant");
    }

    @Test
    void aLongTextIsCutAtWordBoundariesAroundTheMatchWithAnEllipsisWhereCut() {
        String text = "alpha ".repeat(100) + "the zeppelin landed " + "omega ".repeat(100);
        Snippet snippet = only("zeppelin", text);

        assertThat(snippet.text()).startsWith("…alpha").endsWith("omega…").contains("the zeppelin landed");
        assertThat(snippet.text().length()).isLessThanOrEqualTo(Passage.MAX_CHARS + 2);
        assertThat(snippet.text().substring(1, snippet.text().length() - 1)).doesNotStartWith(" ").doesNotEndWith(" ");
        assertThat(snippet.text().substring(1, snippet.text().length() - 1).split(" ")).allMatch(w -> w.equals("alpha") || w.equals("omega")
                || w.equals("the") || w.equals("zeppelin") || w.equals("landed"));
        assertThat(firstMarked(snippet)).isEqualTo("zeppelin");
        assertThat(snippet.matches().getFirst().start()).as("about a third of the room before the match").isBetween(30, 70);
    }

    @Test
    void thePassageWithTheMostDifferentTermsWinsAndAPhraseIsMarkedWhole() {
        String text = "cold " + "x ".repeat(200) + "brew " + "y ".repeat(200) + "a cold brew, really " + "z ".repeat(200);

        assertThat(marked(only("cold brew", text))).contains("a [cold] [brew], really");
        assertThat(marked(only("\"cold brew\"", text))).contains("a [cold brew], really");
    }

    @Test
    void aSearchForAWordFoundThousandsOfTimesCutsOnePassageQuickly() {
        Snippet snippet = only("a", "a ".repeat(50_000));

        assertThat(snippet.matches()).hasSizeGreaterThan(50);
        assertThat(snippet.text()).startsWith("a a");
    }

    @Test
    void offsetsCountUtf16UnitsAndNoCharacterIsCutInHalf() {
        String text = "😀".repeat(100) + " café 😀 " + "😀".repeat(100);
        Snippet snippet = only("CAFÉ", text);

        assertThat(firstMarked(snippet)).isEqualTo("café");
        assertThat(snippet.text().codePoints().filter(cp -> cp >= 0xD800 && cp <= 0xDFFF)).as("no lone surrogate").isEmpty();
    }

    @Test
    void aGiantWordIsCutAndItsMarkStopsWithThePassage() {
        Snippet snippet = only("zz", "before " + "zz".repeat(1_000) + " after");

        assertThat(snippet.text()).endsWith("…");
        Highlight match = snippet.matches().getFirst();
        assertThat(match.end()).isEqualTo(snippet.text().length() - 1);
    }

    @Test
    void upToThreeTextsAreChosenToShowEveryTermThenGivenInTheConversationsOrder() {
        SearchQuery query = SearchQuery.parse("zeppelin budget marmalade");
        Attachment report = new Attachment("ab", "report.pdf", "application/pdf", 10,
                Attachment.wrap("report.pdf", "application/pdf", "The budget of the zeppelin"));
        List<SearchSource> sources = List.of(
                SearchSource.entry(0, "user", "the budget"),
                SearchSource.attachment(0, 0, report.name(), report.sha256(), report.promptText()),
                SearchSource.entry(1, "assistant", "budget budget"),
                SearchSource.entry(2, "tool", "nothing here"),
                SearchSource.entry(3, "tool", "$ skill get marmalade"),
                SearchSource.entry(5, "assistant", "zeppelin budget again"));

        List<Snippet> snippets = Snippets.of(query, sources);

        assertThat(snippets).extracting(Snippet::seq, Snippet::kind)
                .as("the document (two terms), the command output (the third), then the text with the most terms")
                .containsExactly(tuple(0, "attachment"), tuple(3, "tool"), tuple(5, "assistant"));
        assertThat(snippets.getFirst().name()).isEqualTo("report.pdf");
        assertThat(snippets.getFirst().sha256()).isEqualTo("ab");
        assertThat(marked(snippets.getFirst())).isEqualTo("report.pdf The [budget] of the [zeppelin]");
    }

    @Test
    void theTitleShowsItsMatches() {
        assertThat(Snippets.inTitle(SearchQuery.parse("brew"), "Cold brew, brewing")).containsExactly(new Highlight(5, 9), new Highlight(11, 18));
        assertThat(Snippets.inTitle(SearchQuery.parse("brew"), null)).isEmpty();
    }
}
