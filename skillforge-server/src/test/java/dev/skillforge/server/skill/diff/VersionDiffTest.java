package dev.skillforge.server.skill.diff;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillforge.server.skill.SkillFolder;
import dev.skillforge.server.skill.SkillLimits;
import dev.skillforge.server.skill.SkillPath;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class VersionDiffTest {

    private static SkillFolder folder(Map<String, byte[]> files) {
        Map<SkillPath, byte[]> all = new TreeMap<>();
        all.put(SkillPath.SKILL_MD, "---\nname: tea\ndescription: Brew tea.\n---\n".getBytes(StandardCharsets.UTF_8));
        files.forEach((path, bytes) -> all.put(SkillPath.of(path), bytes));
        return SkillFolder.of("tea", all, SkillLimits.DEFAULT);
    }

    private static byte[] text(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void eachChangedFileWithAUnifiedDiffOfTextAndNoneForBinaryUnchangedFilesLeftOut() {
        SkillFolder before = folder(Map.of("scripts/a.sh", text("one\ntwo\nthree\n"), "assets/logo.png", new byte[]{1, 0, 2},
                "references/same.md", text("same\n"), "references/gone.md", text("bye\n")));
        SkillFolder after = folder(Map.of("scripts/a.sh", text("one\n2\nthree\n"), "assets/logo.png", new byte[]{1, 0, 3},
                "references/same.md", text("same\n"), "references/new.md", text("hello\n")));

        List<VersionDiff.FileChange> changes = VersionDiff.between(before, after);

        assertThat(changes).extracting(c -> c.path().value() + " " + c.change()).containsExactly("assets/logo.png CHANGED",
                "references/gone.md REMOVED", "references/new.md ADDED", "scripts/a.sh CHANGED");
        assertThat(changes.get(0).diff()).isEmpty();
        assertThat(changes.get(3).diff()).get().asString().contains("--- a/scripts/a.sh", "+++ b/scripts/a.sh", "-two", "+2", " one");
        assertThat(changes.get(2).diff()).get().asString().contains("+hello");
    }

    @Test
    void fromNothingEveryFileIsAdded() {
        assertThat(VersionDiff.between(null, folder(Map.of()))).singleElement()
                .satisfies(change -> assertThat(change.change()).isEqualTo(VersionDiff.Change.ADDED));
    }
}
