package dev.skillforge.server.skill;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SkillPathTest {

    @ParameterizedTest
    @ValueSource(strings = {"SKILL.md", "scripts/extract.py", "references/FORMS.md", "assets/templates/invoice v2.docx",
            "assets/caf\u00e9/notes.md", "scripts/.hidden", "references/a/b/c/d/e/f/g.md"})
    void acceptsSkillMdAndFilesUnderTheThreeFolders(String path) {
        assertThat(SkillPath.problemWith(path)).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "README.md|is not allowed where it is",
            "skill.md|is not allowed where it is",
            "scripts|is not allowed where it is",
            "other/x.md|is not allowed where it is",
            "../SKILL.md|has a .. part",
            "scripts/../../etc/passwd|has a .. part",
            "scripts/./x.py|has a . part",
            "/etc/passwd|is absolute or uses backslashes",
            "C:/x/y|is absolute or uses backslashes",
            "scripts\\x.py|is absolute or uses backslashes",
            "scripts//x.py|has an empty folder name",
            "scripts/x.py/|has an empty folder name",
            "assets/a:b|which Windows cannot hold",
            "assets/a?b|which Windows cannot hold",
            "assets/name.|ends with a dot or a space",
            "assets/ lead|starts with a space",
            "references/a/b/c/d/e/f/g/h.md|levels deep"})
    void refusesEveryOtherPathSayingWhy(String path, String reason) {
        assertThat(SkillPath.problemWith(path)).get().asString().contains(reason);
    }

    @ParameterizedTest
    @ValueSource(strings = {"scripts/a\u0000b", "scripts/a\nb", "scripts/a\u0085b"})
    void refusesControlCharacters(String path) {
        assertThat(SkillPath.problemWith(path)).get().asString().contains("control character");
    }

    @ParameterizedTest
    @CsvSource({"scripts/Run.py,scripts/run.py", "assets/caf\u00e9.txt,assets/cafe\u0301.txt"})
    void pathsThatOneCaseInsensitiveNormalisingDiskTakesForOneFileCollide(String one, String other) {
        assertThat(SkillPath.of(one).collisionKey()).isEqualTo(SkillPath.of(other).collisionKey());
    }
}
