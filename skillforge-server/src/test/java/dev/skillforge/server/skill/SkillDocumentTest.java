package dev.skillforge.server.skill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SkillDocumentTest {

    static String skillMd(String name, String description, String body) {
        return "---\nname: " + name + "\ndescription: " + description + "\n---\n" + body;
    }

    static String billionLaughs() {
        StringBuilder yaml = new StringBuilder("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
        for (char c = 'b'; c <= 'j'; c++) {
            char prev = (char) (c - 1);
            yaml.append(c).append(": &").append(c).append(" [");
            for (int i = 0; i < 9; i++) {
                yaml.append(i == 0 ? "" : ",").append('*').append(prev);
            }
            yaml.append("]\n");
        }
        return "---\nname: lol\n" + yaml + "description: *j\n---\nbody\n";
    }

    @Test
    void parsesNameDescriptionAndBody() {
        String text = skillMd("pdf-tables", "Extracts tables from PDFs. Use for invoices.", "# PDF tables\n\n1. Open it.\n");

        SkillDocument doc = SkillDocument.parse(text);

        assertThat(doc.name()).isEqualTo("pdf-tables");
        assertThat(doc.description()).isEqualTo("Extracts tables from PDFs. Use for invoices.");
        assertThat(doc.body()).isEqualTo("# PDF tables\n\n1. Open it.\n");
        assertThat(doc.text()).isSameAs(text);
    }

    @Test
    void acceptsWindowsLineEndingsAndByteOrderMark() {
        SkillDocument doc = SkillDocument.parse("\uFEFF---\r\nname: a\r\ndescription: d\r\n---\r\nbody\r\n");

        assertThat(doc.name()).isEqualTo("a");
        assertThat(doc.description()).isEqualTo("d");
        assertThat(doc.body()).isEqualTo("body\r\n");
    }

    @Test
    void acceptsClosingFenceOnTheLastLineWithoutBody() {
        assertThat(SkillDocument.parse("---\nname: a\ndescription: d\n---").body()).isEmpty();
    }

    @Test
    void acceptsFoldedMultiLineDescriptionAndOtherSpecFields() {
        SkillDocument doc = SkillDocument.parse("""
                ---
                name: a
                description: >
                  Does one thing.
                  Use it when asked.
                license: Apache-2.0
                metadata:
                  author: someone
                  version: "1.0"
                allowed-tools: Bash(git:*) Read
                ---
                body
                """);

        assertThat(doc.description()).isEqualTo("Does one thing. Use it when asked.\n");
    }

    @Test
    void aDashLineInsideTheBodyIsBodyNotFrontMatter() {
        SkillDocument doc = SkillDocument.parse(skillMd("a", "d", "intro\n---\nmore\n"));

        assertThat(doc.body()).isEqualTo("intro\n---\nmore\n");
    }

    @Test
    void acceptsDescriptionOf1024CharactersCountingCharactersNotBytes() {
        assertThat(SkillDocument.parse(skillMd("a", "d".repeat(1024), "")).description()).hasSize(1024);
        assertThat(SkillDocument.parse(skillMd("a", "\u00e9".repeat(1024), "")).description()).hasSize(1024);
        // Characters outside the BMP are one character each, though two Java chars.
        assertThat(SkillDocument.parse(skillMd("a", "\uD83D\uDE00".repeat(1024), "")).description()).hasSize(2048);
    }

    @Test
    void emojiStraddlingTheYamlReadBufferParse() {
        // Regression: snakeyaml-engine 2.10 threw IndexOutOfBoundsException when a surrogate pair
        // crossed the end of its 1024-char read buffer.
        for (int pad = 950; pad < 1100; pad++) {
            String license = "a".repeat(pad) + "\uD83D\uDE00".repeat(10);
            String text = "---\nname: a\ndescription: d\nlicense: " + license + "\n---\n";
            assertThat(SkillDocument.parse(text).name()).as("pad %d", pad).isEqualTo("a");
        }
    }

    @Test
    void rejectsDescriptionOver1024Characters() {
        assertThatThrownBy(() -> SkillDocument.parse(skillMd("a", "d".repeat(1025), "")))
                .isInstanceOf(SkillException.class)
                .hasMessage("the front matter field description is 1025 characters long; the limit is 1024:"
                        + " shorten it and move details into the instructions.");
    }

    @Test
    void acceptsContentOfExactly256KiB() {
        String head = skillMd("a", "d", "");
        String text = head + "x".repeat(SkillDocument.MAX_BYTES - head.length());

        assertThat(SkillDocument.parse(text).body()).hasSize(SkillDocument.MAX_BYTES - head.length());
    }

    @Test
    void rejectsContentOver256KiBCountingUtf8Bytes() {
        String head = skillMd("a", "d", "");
        assertThatThrownBy(() -> SkillDocument.parse(head + "x".repeat(SkillDocument.MAX_BYTES - head.length() + 1)))
                .isInstanceOf(SkillException.class)
                .hasMessageContaining("the limit is 262144 bytes (256 KiB)");
        // 140,000 characters, but 280,000 bytes in UTF-8.
        assertThatThrownBy(() -> SkillDocument.parse(head + "\u00e9".repeat(140_000)))
                .isInstanceOf(SkillException.class)
                .hasMessageStartingWith("SKILL.md is " + (head.length() + 280_000) + " bytes");
    }

    @Test
    void rejectsBillionLaughsQuickly() {
        SkillException e = Assertions.assertTimeoutPreemptively(Duration.ofSeconds(5),
                () -> Assertions.assertThrows(SkillException.class, () -> SkillDocument.parse(billionLaughs())));

        assertThat(e).hasMessageContaining("too many YAML aliases");
    }

    @Test
    void rejectsDeepNestingWithoutOverflowingTheStack() {
        String deep = "---\nname: a\ndescription: d\nx: " + "[".repeat(100_000) + "]".repeat(100_000) + "\n---\n";

        assertThatThrownBy(() -> SkillDocument.parse(deep))
                .isInstanceOf(SkillException.class)
                .hasMessageContaining("more than 10 levels deep");
    }

    static Stream<Arguments> rejections() {
        return Stream.of(
                Arguments.of("plain Markdown", "# Title\n\nSteps.\n", "must start with a line ---"),
                Arguments.of("empty text", "", "must start with a line ---"),
                Arguments.of("front matter not on the first line", "\n---\nname: a\ndescription: d\n---\n", "must start with a line ---"),
                Arguments.of("text after the opening fence", "--- name: a\ndescription: d\n---\n", "must start with a line ---"),
                Arguments.of("code fence around it", "```markdown\n---\nname: a\ndescription: d\n---\n```\n", "must start with a line ---"),
                Arguments.of("unterminated", "---\nname: a\ndescription: d\n# Body\n", "is never closed"),
                Arguments.of("only an opening fence", "---", "is never closed"),
                Arguments.of("empty front matter", "---\n---\nbody\n", "the front matter is empty"),
                Arguments.of("comment-only front matter", "---\n# nothing\n---\nbody\n", "the front matter is empty"),
                Arguments.of("a list", "---\n- name: a\n- description: d\n---\n", "must be a YAML mapping"),
                Arguments.of("a scalar", "---\njust text\n---\n", "must be a YAML mapping"),
                Arguments.of("no name", "---\ndescription: d\n---\n", "has no name field"),
                Arguments.of("no description", "---\nname: a\n---\n", "has no description field"),
                Arguments.of("empty name", "---\nname:\ndescription: d\n---\n", "field name is empty"),
                Arguments.of("numeric name", "---\nname: 123\ndescription: d\n---\n", "field name must be text, not a number"),
                Arguments.of("list name", "---\nname: [a]\ndescription: d\n---\n", "field name must be text, not a list"),
                Arguments.of("boolean description", "---\nname: a\ndescription: true\n---\n", "field description must be text, not true/false"),
                Arguments.of("mapping description", "---\nname: a\ndescription:\n  x: y\n---\n", "field description must be text, not a mapping"),
                Arguments.of("blank description", "---\nname: a\ndescription: \"   \"\n---\n", "field description is blank"),
                Arguments.of("invalid name", "---\nname: My_Skill\ndescription: d\n---\n", "field name is invalid"),
                Arguments.of("traversal name", "---\nname: ../../etc\ndescription: d\n---\n", "field name is invalid"),
                Arguments.of("syntax error", "---\nname: [a\ndescription: d\n---\n", "not valid YAML"),
                Arguments.of("unquoted colon", "---\nname: a\ndescription: Use: this: now\n---\n", "not valid YAML"),
                Arguments.of("duplicate key", "---\nname: a\nname: b\ndescription: d\n---\n", "not valid YAML"),
                Arguments.of("custom tag", "---\nname: a\ndescription: !!java.net.URL http://x\n---\n", "front matter"),
                Arguments.of("second document", "---\nname: a\ndescription: d\n...\nname: b\n---\n", "not valid YAML"),
                Arguments.of("alias bomb", billionLaughs(), "too many YAML aliases"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rejections")
    void rejectsWithOneLineReasonNamingTheProblem(String what, String text, String reason) {
        assertThatThrownBy(() -> SkillDocument.parse(text))
                .isInstanceOf(SkillException.class)
                .hasMessageContaining(reason)
                .message().doesNotContain("\n");
    }

    @Test
    void theSpecificationsOptionalFieldsAreCheckedAndEveryProblemIsNamed() {
        String text = """
                ---
                name: a
                description: d
                license: [MIT]
                compatibility: %s
                metadata:
                  version: 2
                allowed-tools: 3
                author: someone
                ---
                """.formatted("x".repeat(501));

        SkillException refused = Assertions.assertThrows(SkillException.class, () -> SkillDocument.parse(text));

        assertThat(refused.kind()).isEqualTo(SkillException.Kind.INVALID);
        assertThat(refused.problems()).hasSize(5);
        assertThat(String.join("\n", refused.problems())).contains("field license must be text, not a list",
                "compatibility is 501 characters long", "metadata.version must be text", "field allowed-tools must be text",
                "\"author\" is not one of the Agent Skills specification's");
    }

    @Test
    void aSkillMdFromBeforeTheFieldsWereCheckedIsStillReadAsLegacy() {
        String old = "---\nname: a\ndescription: d\nversion: 3\n---\nbody\n";

        assertThat(SkillDocument.parseLegacy(SkillName.of("a"), old).body()).isEqualTo("body\n");
        Assertions.assertThrows(SkillException.class, () -> SkillDocument.parse(old));
        Assertions.assertThrows(SkillException.class, () -> SkillDocument.parseLegacy(SkillName.of("b"), old));
    }

    @Test
    void yamlErrorsSayTheLineOfSkillMd() {
        assertThatThrownBy(() -> SkillDocument.parse("---\nname: a\ndescription: [d\n---\n"))
                .hasMessageContaining("(line 4 of SKILL.md)");
    }
}
