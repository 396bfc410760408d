package dev.skillforge.server.skill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SkillNameTest {

    @ParameterizedTest
    @ValueSource(strings = {"a", "7", "pdf", "pdf-processing", "csv-cleanup-2", "a-b-c-d"})
    void acceptsLowercaseDigitsAndSingleHyphens(String name) {
        assertThat(SkillName.isValid(name)).isTrue();
        assertThat(SkillName.of(name).value()).isEqualTo(name);
        assertThat(SkillName.problemWith(name)).isEmpty();
    }

    @Test
    void accepts64CharactersAndRefuses65() {
        assertThat(SkillName.isValid("a".repeat(64))).isTrue();
        assertThatThrownBy(() -> SkillName.of("a".repeat(65)))
                .isInstanceOf(SkillException.class)
                .hasMessageContaining("65 characters long");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ".", "..", "../x", "a/b", "a\\b", "/etc/passwd", "C:\\skills", "x.md", "Pdf", "PDF", "a b",
            "a\tb", "a\nb", "a\u0000b", "p\u0430f", "\uff41\uff42", "caf\u00e9", "-a", "a-", "-", "a--b", "a_b", "a;b",
            "$(id)", "`id`", "~", "%2e%2e"})
    void refusesHostileAndMalformedNamesSayingWhatIsAllowed(String name) {
        assertThat(SkillName.isValid(name)).isFalse();
        assertThatThrownBy(() -> SkillName.of(name))
                .isInstanceOf(SkillException.class)
                .hasMessageContaining(SkillName.RULES)
                .message().doesNotContain("\n", "\u0000");
    }

    @Test
    void refusesNull() {
        assertThatThrownBy(() -> SkillName.of(null)).isInstanceOf(SkillException.class).hasMessageContaining("empty");
    }

    @Test
    void explainsTheSpecificProblem() {
        assertThat(SkillName.problemWith("")).get().asString().startsWith("the skill name is empty");
        assertThat(SkillName.problemWith("../x")).get().asString().contains("a name is not a path");
        assertThat(SkillName.problemWith("My-Skill")).get().asString().contains("uppercase");
        assertThat(SkillName.problemWith("-a")).get().asString().contains("starts or ends with a hyphen");
        assertThat(SkillName.problemWith("a-")).get().asString().contains("starts or ends with a hyphen");
        assertThat(SkillName.problemWith("a--b")).get().asString().contains("two hyphens in a row");
        assertThat(SkillName.problemWith("a b")).get().asString().contains("the character \" \"");
    }

    @Test
    void showsInvisibleAndLookAlikeCharactersAsEscapes() {
        assertThat(SkillName.problemWith("a\u0000b")).get().asString().contains("\"a\\u0000b\"");
        // Cyrillic 'а' looks like Latin 'a': the message must make the difference visible.
        assertThat(SkillName.problemWith("p\u0430f")).get().asString().contains("\\u0430");
    }

    @Test
    void quotesAtMost64CharactersOfAHugeName() {
        String problem = SkillName.problemWith("x".repeat(100_000)).orElseThrow();
        assertThat(problem).contains("100000 characters long").hasSizeLessThan(400);
    }

    @Test
    void quoteEscapesQuotesAndBackslashes() {
        assertThat(SkillName.quote("a\"b\\c")).isEqualTo("\"a\\\"b\\\\c\"");
    }
}
