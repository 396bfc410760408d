package dev.skillforge.server.skill;

import static dev.skillforge.server.skill.SkillFiles.link;
import static dev.skillforge.server.skill.SkillFiles.skillMd;
import static dev.skillforge.server.skill.SkillFiles.snapshot;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SkillStoreTest {

    @TempDir
    Path base;

    Path root;
    SkillStore store;

    @BeforeEach
    void setUp() throws IOException {
        root = base.resolve("data").resolve("skills");
        store = new SkillStore(root);
    }

    @Test
    void constructorCreatesTheMissingRoot() {
        assertThat(root).isDirectory();
        assertThat(store.root()).isEqualTo(root.toAbsolutePath().normalize());
    }

    @Test
    void saveCreatesTheAgentSkillsFolderLayout() throws IOException {
        String content = skillMd("pdf-tables", "Extracts tables.", "# Steps\n");

        SkillStore.Saved saved = store.save("pdf-tables", content);

        assertThat(saved).isEqualTo(new SkillStore.Saved("pdf-tables", SkillStore.Outcome.CREATED, content.length()));
        assertThat(root.resolve("pdf-tables/SKILL.md")).hasContent(content);
        try (Stream<Path> files = Files.list(root.resolve("pdf-tables"))) {
            assertThat(files).as("no temporary file is left").containsExactly(root.resolve("pdf-tables/SKILL.md"));
        }
    }

    @Test
    void saveOfAnExistingSkillReportsUpdatedAndReplacesIt() throws IOException {
        store.save("a", skillMd("a", "first", "one\n"));

        SkillStore.Saved saved = store.save("a", skillMd("a", "second", "two\n"));

        assertThat(saved.outcome()).isEqualTo(SkillStore.Outcome.UPDATED);
        assertThat(store.get("a")).contains(skillMd("a", "second", "two\n"));
    }

    @Test
    void saveCountsBytesNotCharacters() throws IOException {
        String content = skillMd("a", "caf\u00e9", "");

        assertThat(store.save("a", content).bytes()).isEqualTo(content.getBytes(StandardCharsets.UTF_8).length).isEqualTo(content.length() + 1);
        assertThat(Files.size(root.resolve("a/SKILL.md"))).isEqualTo(content.length() + 1);
    }

    @Test
    void saveRejectsANameFieldThatDiffersFromTheFolderAndCreatesNothing() {
        assertThatThrownBy(() -> store.save("a", skillMd("b", "d", "")))
                .isInstanceOf(SkillException.class)
                .hasMessage("the front matter field name is \"b\" but the skill is saved as \"a\": they must be the same.");
        assertThat(root).isEmptyDirectory();
    }

    @Test
    void saveRejectsDescriptionOver1024CharactersAndKeepsTheOldContent() throws IOException {
        String old = skillMd("a", "old", "old body\n");
        store.save("a", old);

        assertThatThrownBy(() -> store.save("a", skillMd("a", "x".repeat(1025), "new body\n")))
                .isInstanceOf(SkillException.class)
                .hasMessageContaining("description is 1025 characters long");
        assertThat(root.resolve("a/SKILL.md")).hasContent(old);
    }

    @Test
    void aFailedSaveOfANewSkillLeavesNoFolder() {
        assertThatThrownBy(() -> store.save("a", "no front matter")).isInstanceOf(SkillException.class);

        assertThat(root).isEmptyDirectory();
    }

    @Test
    void saveRefusesWhenAFileIsWhereTheFolderWouldGo() throws IOException {
        Files.writeString(root.resolve("a"), "not a folder");

        assertThatThrownBy(() -> store.save("a", skillMd("a", "d", ""))).isInstanceOf(SkillException.class)
                .hasMessageContaining("there is a file named a");
        assertThat(root.resolve("a")).hasContent("not a folder");
    }

    @Test
    void getReturnsTheStoredTextVerbatim() throws IOException {
        String content = "---\r\nname: a\r\ndescription: 'quoted: value'\r\n---\r\n  indented\t\n\n\n";
        store.save("a", content);

        assertThat(store.get("a")).contains(content);
    }

    @Test
    void getOfAMissingSkillIsEmpty() throws IOException {
        assertThat(store.get("nope")).isEmpty();
        Files.createDirectory(root.resolve("empty-folder"));
        assertThat(store.get("empty-folder")).isEmpty();
    }

    @Test
    void getReturnsAnInvalidSkillMdSoItCanBeRepaired() throws IOException {
        Files.createDirectories(root.resolve("broken"));
        Files.writeString(root.resolve("broken/SKILL.md"), "no front matter");

        assertThat(store.get("broken")).contains("no front matter");
        assertThat(store.list()).isEmpty();
    }

    @Test
    void listIsSortedByNameAndSkipsFoldersWithoutAValidSkillMd() throws IOException {
        store.save("zeta", skillMd("zeta", "last", ""));
        store.save("alpha", skillMd("alpha", "first", ""));
        store.save("mid-1", skillMd("mid-1", "middle", ""));
        Files.createDirectories(root.resolve("no-skill-md"));
        Files.createDirectories(root.resolve("broken"));
        Files.writeString(root.resolve("broken/SKILL.md"), "---\nname: broken\n");
        Files.createDirectories(root.resolve("wrong-name"));
        Files.writeString(root.resolve("wrong-name/SKILL.md"), skillMd("other", "d", ""));
        Files.createDirectories(root.resolve("Upper"));
        Files.writeString(root.resolve("Upper/SKILL.md"), skillMd("upper", "d", ""));
        Files.createDirectories(root.resolve(".hidden"));
        Files.writeString(root.resolve("loose-file"), "x");
        Files.createDirectories(root.resolve("dir-skill-md/SKILL.md"));
        Files.createDirectories(root.resolve("huge"));
        Files.writeString(root.resolve("huge/SKILL.md"), skillMd("huge", "d", "x".repeat(SkillDocument.MAX_BYTES)));

        assertThat(store.list()).containsExactly(
                new SkillStore.Summary("alpha", "first"),
                new SkillStore.Summary("mid-1", "middle"),
                new SkillStore.Summary("zeta", "last"));
    }

    @Test
    void listSkipsASymlinkedSkillFolderPointingOutsideTheRoot() throws IOException {
        Path outside = Files.createDirectories(base.resolve("outside/secret"));
        Files.writeString(outside.resolve("SKILL.md"), skillMd("secret", "outside the root", ""));
        link(root.resolve("secret"), outside);
        store.save("inside", skillMd("inside", "d", ""));

        assertThat(store.list()).extracting(SkillStore.Summary::name).containsExactly("inside");
    }

    @Test
    void getRefusesASymlinkedSkillFolder() throws IOException {
        Path outside = Files.createDirectories(base.resolve("outside"));
        Files.writeString(outside.resolve("SKILL.md"), skillMd("x", "SECRET", ""));
        link(root.resolve("x"), outside);

        assertThatThrownBy(() -> store.get("x"))
                .isInstanceOf(SkillException.class)
                .hasMessageContaining("symbolic link")
                .message().doesNotContain("SECRET");
    }

    @Test
    void getRefusesASymlinkedSkillMd() throws IOException {
        Path secret = Files.writeString(Files.createDirectories(base.resolve("outside")).resolve("passwd"), "root:x:0:0");
        Files.createDirectories(root.resolve("x"));
        link(root.resolve("x/SKILL.md"), secret);

        assertThatThrownBy(() -> store.get("x")).isInstanceOf(SkillException.class).hasMessageContaining("symbolic link");
        assertThat(store.list()).isEmpty();
    }

    @Test
    void saveRefusesASymlinkedSkillFolderAndWritesNothingOutside() throws IOException {
        Path outside = Files.createDirectories(base.resolve("outside"));
        link(root.resolve("x"), outside);
        Map<String, String> before = snapshot(base);

        assertThatThrownBy(() -> store.save("x", skillMd("x", "d", ""))).isInstanceOf(SkillException.class)
                .hasMessageContaining("symbolic link");
        assertThat(snapshot(base)).isEqualTo(before);
    }

    @Test
    void saveRefusesASymlinkedSkillMdAndLeavesItsTargetUnchanged() throws IOException {
        Path target = Files.writeString(Files.createDirectories(base.resolve("outside")).resolve("target.txt"), "precious");
        Files.createDirectories(root.resolve("x"));
        link(root.resolve("x/SKILL.md"), target);
        Map<String, String> before = snapshot(base);

        assertThatThrownBy(() -> store.save("x", skillMd("x", "d", ""))).isInstanceOf(SkillException.class);
        assertThat(snapshot(base)).isEqualTo(before);
    }

    @Test
    void deleteRemovesTheFolderWithAllItsFiles() throws IOException {
        store.save("a", skillMd("a", "d", ""));
        Files.createDirectories(root.resolve("a/scripts"));
        Files.writeString(root.resolve("a/scripts/run.py"), "print(1)");
        store.save("b", skillMd("b", "d", ""));

        assertThat(store.delete("a")).isTrue();

        try (Stream<Path> left = Files.list(root)) {
            assertThat(left).containsExactly(root.resolve("b"));
        }
        assertThat(store.get("a")).isEmpty();
    }

    @Test
    void deleteOfAMissingSkillReturnsFalse() throws IOException {
        assertThat(store.delete("nope")).isFalse();
    }

    @Test
    void deleteRefusesASymlinkedSkillFolderAndLeavesLinkAndTarget() throws IOException {
        Path outside = Files.createDirectories(base.resolve("outside"));
        Files.writeString(outside.resolve("SKILL.md"), skillMd("x", "d", ""));
        link(root.resolve("x"), outside);
        Map<String, String> before = snapshot(base);

        assertThatThrownBy(() -> store.delete("x")).isInstanceOf(SkillException.class);
        assertThat(snapshot(base)).isEqualTo(before);
    }

    @Test
    void deleteRefusesASymlinkedSkillMd() throws IOException {
        Path target = Files.writeString(Files.createDirectories(base.resolve("outside")).resolve("t"), "keep");
        Files.createDirectories(root.resolve("x"));
        link(root.resolve("x/SKILL.md"), target);
        Map<String, String> before = snapshot(base);

        assertThatThrownBy(() -> store.delete("x")).isInstanceOf(SkillException.class);
        assertThat(snapshot(base)).isEqualTo(before);
    }

    @Test
    void deleteRemovesLinksInsideASkillButNotWhatTheyPointTo() throws IOException {
        Path outside = Files.createDirectories(base.resolve("outside"));
        Files.writeString(outside.resolve("important.txt"), "keep me");
        store.save("a", skillMd("a", "d", ""));
        link(root.resolve("a/references"), outside);

        assertThat(store.delete("a")).isTrue();

        assertThat(root.resolve("a")).doesNotExist();
        assertThat(outside.resolve("important.txt")).hasContent("keep me");
    }

    @Test
    void hostileNamesAreRefusedAndTouchNothingOnDisk() throws IOException {
        Files.writeString(base.resolve("data/victim.txt"), "keep");
        store.save("ok", skillMd("ok", "d", ""));
        Map<String, String> before = snapshot(base);
        List<String> hostile = List.of("../victim.txt", "..", ".", "../../x", "/tmp/x", "a/b", "ok/../../data", "OK", "ok\u0000",
                "\u043ek", "", "x".repeat(65), "ok/SKILL.md", "..\\x");

        for (String name : hostile) {
            String content = "---\nname: x\ndescription: d\n---\n";
            assertThatThrownBy(() -> store.get(name)).as(name).isInstanceOf(SkillException.class);
            assertThatThrownBy(() -> store.save(name, content)).as(name).isInstanceOf(SkillException.class);
            assertThatThrownBy(() -> store.delete(name)).as(name).isInstanceOf(SkillException.class);
        }

        assertThat(snapshot(base)).isEqualTo(before);
    }

    @Test
    void searchMatchesEveryWordIgnoringCaseInNameDescriptionOrBody() throws IOException {
        store.save("pdf-tables", skillMd("pdf-tables", "Extracts TABLES from PDF files.", "Uses camelot.\n"));
        store.save("csv-cleanup", skillMd("csv-cleanup", "Cleans CSV exports.", "Handles tables with bad quoting.\n"));
        store.save("git-bisect", skillMd("git-bisect", "Finds the commit that broke a build.", "Run git bisect.\n"));

        assertThat(store.search(List.of("tables"))).extracting(SkillStore.Summary::name).containsExactly("csv-cleanup", "pdf-tables");
        assertThat(store.search(List.of("TABLES", "camelot"))).extracting(SkillStore.Summary::name).containsExactly("pdf-tables");
        assertThat(store.search(List.of("bisect"))).extracting(SkillStore.Summary::name).containsExactly("git-bisect");
        assertThat(store.search(List.of("csv", "camelot"))).isEmpty();
        assertThat(store.search(List.of("nothing-like-this"))).isEmpty();
    }

    @Test
    void searchIgnoresInvalidSkills() throws IOException {
        Files.createDirectories(root.resolve("broken"));
        Files.writeString(root.resolve("broken/SKILL.md"), "tables everywhere");

        assertThat(store.search(List.of("tables"))).isEmpty();
    }

    @Test
    void concurrentSavesAreAtomicForReaders() throws Exception {
        String small = skillMd("a", "small", "s\n");
        String large = skillMd("a", "large", "L".repeat(200_000) + "\n");
        store.save("a", small);
        ExecutorService pool = Executors.newFixedThreadPool(6);
        CountDownLatch start = new CountDownLatch(1);
        ConcurrentLinkedQueue<String> unexpected = new ConcurrentLinkedQueue<>();
        List<Future<?>> futures = new ArrayList<>();
        try {
            for (int writer = 0; writer < 2; writer++) {
                futures.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < 100; i++) {
                        store.save("a", i % 2 == 0 ? large : small);
                    }
                    return null;
                }));
            }
            for (int reader = 0; reader < 3; reader++) {
                futures.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < 200; i++) {
                        String seen = store.get("a").orElse("<missing>");
                        if (!seen.equals(small) && !seen.equals(large)) {
                            unexpected.add(seen.length() + " chars");
                        }
                        if (store.list().stream().noneMatch(skill -> skill.name().equals("a"))) {
                            unexpected.add("list without the skill");
                        }
                    }
                    return null;
                }));
            }
            futures.add(pool.submit(() -> {
                start.await();
                for (int i = 0; i < 50; i++) {
                    store.save("other-" + i, skillMd("other-" + i, "d", ""));
                }
                return null;
            }));
            start.countDown();
            for (Future<?> future : futures) {
                future.get();
            }
        } finally {
            pool.shutdownNow();
        }

        assertThat(unexpected).isEmpty();
        assertThat(store.list()).hasSize(51);
        try (Stream<Path> files = Files.list(root.resolve("a"))) {
            assertThat(files).containsExactly(root.resolve("a/SKILL.md"));
        }
    }
}
