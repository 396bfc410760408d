package dev.skillforge.server.search;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SearchQueryTest {

    private static List<List<String>> terms(String text) {
        return SearchQuery.parse(text).terms().stream().map(SearchQuery.Term::words).toList();
    }

    @Test
    void wordsAreRunsOfLettersAndDigitsInLowerCase() {
        assertThat(terms("Cold  BREW\tnotes 2026")).containsExactly(List.of("cold"), List.of("brew"), List.of("notes"), List.of("2026"));
        assertThat(terms("Straße ÉCOLE 東京 ٣")).containsExactly(List.of("straße"), List.of("école"), List.of("東京"), List.of("٣"));
        assertThat(terms("brew Brew BREW")).as("a term once").containsExactly(List.of("brew"));
    }

    @Test
    void quotesAndWordsJoinedByPunctuationArePhrases() {
        assertThat(terms("\"cold brew\" notes")).containsExactly(List.of("cold", "brew"), List.of("notes"));
        assertThat(terms("\"cold brew")).as("an unclosed quote runs to the end").containsExactly(List.of("cold", "brew"));
        assertThat(terms("snake_case example.com 3.14")).containsExactly(List.of("snake", "case"), List.of("example", "com"), List.of("3", "14"));
        assertThat(terms("\"brew\"")).as("one word in quotes is a word").containsExactly(List.of("brew"));
    }

    @Test
    void wildcardsOperatorsAndRegularExpressionsAreOnlyPunctuation() {
        assertThat(terms("100% a_b")).containsExactly(List.of("100"), List.of("a", "b"));
        assertThat(terms("brew* OR -x NEAR(a b)")).containsExactly(List.of("brew"), List.of("or"), List.of("x"), List.of("near", "a"), List.of("b"));
        assertThat(terms("^c.*d$ [x]+")).containsExactly(List.of("c", "d"), List.of("x"));
    }

    @Test
    void aQueryWithoutWordsOrOverItsLimitsIsRefusedSayingWhy() {
        assertThatThrownBy(() -> SearchQuery.parse(null)).isInstanceOf(SearchQuery.InvalidQueryException.class).hasMessageContaining("q is empty");
        assertThatThrownBy(() -> SearchQuery.parse("  \t")).hasMessageContaining("q is empty");
        assertThatThrownBy(() -> SearchQuery.parse("%_*\"\" ?! ---")).isInstanceOf(SearchQuery.InvalidQueryException.class)
                .hasMessageContaining("no word").hasMessageContaining("%_*");
        assertThatThrownBy(() -> SearchQuery.parse("x".repeat(201))).hasMessage("q is 201 characters; the limit is 200");
        assertThat(terms("x".repeat(200))).hasSize(1);
        assertThatThrownBy(() -> SearchQuery.parse("a b c d e f g h i")).hasMessageContaining("9 terms; the limit is 8");
        assertThatThrownBy(() -> SearchQuery.parse("\"a b c d e f g h i\" \"j k l m n o p q\"")).hasMessageContaining("17 words; the limit is 16");
    }
}
