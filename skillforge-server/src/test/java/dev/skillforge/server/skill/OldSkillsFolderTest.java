package dev.skillforge.server.skill;

import static dev.skillforge.server.skill.SqliteSkills.skillMd;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OldSkillsFolderTest {

    @TempDir
    Path data;

    private Path skill(String name, String skillMd) throws IOException {
        Path folder = Files.createDirectories(data.resolve("skills").resolve(name));
        Files.writeString(folder.resolve("SKILL.md"), skillMd);
        return folder;
    }

    @Test
    void everySkillOfTheOldFolderBecomesVersion1OfTheLocalPersonAndTheFolderIsKeptAside() throws IOException {
        Path tea = skill("tea", skillMd("tea", "Brew tea.", "# Tea\n"));
        Files.createDirectories(tea.resolve("scripts"));
        Files.writeString(tea.resolve("scripts/brew.sh"), "echo brew\n");
        Files.writeString(tea.resolve("notes.txt"), "kept on disk only");
        // Written by the older store, before the specification's other fields were checked: imported all the same.
        skill("old-style", "---\nname: old-style\ndescription: Kept.\nversion: 3\n---\nBody\n");
        skill("broken", "no front matter\n");
        skill("other-name", skillMd("not-this", "d", ""));
        Files.createDirectories(data.resolve("skills/.deleted-x-123"));
        Files.createSymbolicLink(data.resolve("skills/linked"), tea);

        try (SqliteSkills skills = new SqliteSkills(data)) {
            OldSkillsFolder.Imported imported = new OldSkillsFolder(data.resolve("skills")).importInto(skills.store, SkillLimits.DEFAULT);

            assertThat(imported.skills()).containsExactlyInAnyOrder("tea", "old-style");
            assertThat(imported.skipped()).hasSize(3).anySatisfy(s -> assertThat(s).startsWith("broken ("))
                    .anySatisfy(s -> assertThat(s).startsWith("other-name (")).anySatisfy(s -> assertThat(s).startsWith("linked ("));
            SkillVersion version = skills.store.current(SkillAccess.LOCAL, "tea").orElseThrow();
            assertThat(version.version()).isEqualTo(1);
            assertThat(version.source().door()).isEqualTo(VersionSource.Door.DISK);
            assertThat(version.files()).extracting(f -> f.path().value()).containsExactly("SKILL.md", "scripts/brew.sh");
            assertThat(new String(skills.store.folder(SkillAccess.LOCAL, "tea", 1).orElseThrow().file(SkillPath.of("scripts/brew.sh"))
                    .orElseThrow(), StandardCharsets.UTF_8)).isEqualTo("echo brew\n");
            assertThat(imported.keptAs()).isEqualTo(data.resolve("skills.imported"));
            assertThat(data.resolve("skills")).doesNotExist();
            assertThat(data.resolve("skills.imported/tea/notes.txt")).hasContent("kept on disk only");
            assertThat(data.resolve("skills.imported/broken/SKILL.md")).exists();
        }
    }

    @Test
    void theImportHappensOnceAndNeverReplacesASkillTheStoreHas() throws IOException {
        skill("tea", skillMd("tea", "From the old folder.", ""));
        try (SqliteSkills skills = new SqliteSkills(data)) {
            skills.store.write(SkillAccess.ONE_PERSON, SkillFolder.ofSkillMd("tea", skillMd("tea", "Newer, in the store.", ""),
                    SkillLimits.DEFAULT), VersionSource.of(VersionSource.Door.API));

            OldSkillsFolder.Imported first = new OldSkillsFolder(data.resolve("skills")).importInto(skills.store, SkillLimits.DEFAULT);
            assertThat(first.skills()).isEmpty();
            assertThat(skills.store.current(SkillAccess.LOCAL, "tea").orElseThrow().description()).isEqualTo("Newer, in the store.");

            // A folder made again later (by hand) is imported then, and kept beside the first one.
            skill("coffee", skillMd("coffee", "Brew coffee.", ""));
            OldSkillsFolder.Imported second = new OldSkillsFolder(data.resolve("skills")).importInto(skills.store, SkillLimits.DEFAULT);
            assertThat(second.skills()).containsExactly("coffee");
            assertThat(second.keptAs()).isEqualTo(data.resolve("skills.imported-2"));
            assertThat(new OldSkillsFolder(data.resolve("skills")).importInto(skills.store, SkillLimits.DEFAULT).keptAs()).isNull();
        }
    }
}
