package dev.skillforge.server.skill;

import dev.skillforge.server.skill.jdbc.JdbcSkillStore;
import dev.skillforge.server.store.Database;
import dev.skillforge.testkit.ManualClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The conformance suite of {@link SkillStore}: each database's test extends it and says how to open a database, empty
 * at the test's start. No mocks: a real database, and two stores on it where a test needs two server instances.
 */
abstract class SkillStoreContract {

    static final SkillAccess ANN = new SkillAccess("ann", false);
    static final SkillAccess BOB = new SkillAccess("bob", false);
    static final SkillAccess ADMIN = new SkillAccess("admin", true);
    static final VersionSource BY_HAND = VersionSource.of(VersionSource.Door.API);
    static final VersionSource BY_MODEL = VersionSource.model("c-1");

    private final List<Database> opened = new ArrayList<>();
    protected final ManualClock clock = new ManualClock(Instant.parse("2026-11-28T10:00:00Z").toEpochMilli());
    private SkillStore store;

    /** Opens the test's database, with its own connection pool: every call in one test reaches the same database. */
    protected abstract Database openDatabase();

    protected final SkillStore store() {
        if (store == null) {
            store = anotherStore(SkillLimits.DEFAULT);
        }
        return store;
    }

    /** Another store on the same database, as another server instance would have. */
    protected final SkillStore anotherStore(SkillLimits limits) {
        Database database = openDatabase();
        opened.add(database);
        return new JdbcSkillStore(database, limits, clock);
    }

    @AfterEach
    void closeDatabases() {
        opened.reversed().forEach(Database::close);
        opened.clear();
        store = null;
    }

    static String skillMd(String name, String description) {
        return "---\nname: " + name + "\ndescription: " + description + "\n---\n# " + name + "\n";
    }

    static SkillFolder folder(String name, String description, Map<String, String> files) {
        Map<SkillPath, byte[]> bytes = new java.util.TreeMap<>();
        bytes.put(SkillPath.SKILL_MD, skillMd(name, description).getBytes(StandardCharsets.UTF_8));
        files.forEach((path, text) -> bytes.put(SkillPath.of(path), text.getBytes(StandardCharsets.UTF_8)));
        return SkillFolder.of(name, bytes, SkillLimits.DEFAULT);
    }

    static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private String text(String owner, String name, int version, String path) {
        return new String(store().folder(owner, name, version).orElseThrow().file(SkillPath.of(path)).orElseThrow(), StandardCharsets.UTF_8);
    }

    @Test
    void everyWriteMakesTheNextVersionOfTheWholeFolderAndAnIdenticalOneMakesNone() {
        Written first = store().write(ANN, folder("tea", "Brew tea.", Map.of()), BY_MODEL);
        clock.advance(java.time.Duration.ofMinutes(1));
        Written second = store().putFile(ANN, "tea", SkillPath.of("scripts/brew.sh"), utf8("echo brew\n"), BY_HAND);
        Written same = store().putFile(ANN, "tea", SkillPath.of("scripts/brew.sh"), utf8("echo brew\n"), BY_HAND);

        assertThat(first.outcome()).isEqualTo(Written.Outcome.CREATED);
        assertThat(first.version().version()).isEqualTo(1);
        assertThat(first.version().source()).isEqualTo(BY_MODEL);
        assertThat(first.version().createdAt()).isEqualTo(Instant.parse("2026-11-28T10:00:00Z").toEpochMilli());
        assertThat(second.outcome()).isEqualTo(Written.Outcome.UPDATED);
        assertThat(second.version().files()).extracting(f -> f.path().value()).containsExactly("SKILL.md", "scripts/brew.sh");
        assertThat(second.version().files().get(1).sha256()).isEqualTo(Sha256.hex(utf8("echo brew\n")));
        assertThat(same.outcome()).isEqualTo(Written.Outcome.UNCHANGED);
        assertThat(same.version()).isEqualTo(second.version());

        assertThat(store().history("ann", "tea")).extracting(SkillVersion::version).containsExactly(2, 1);
        assertThat(store().current("ann", "tea")).contains(second.version());
        assertThat(text("ann", "tea", 2, "scripts/brew.sh")).isEqualTo("echo brew\n");
        assertThat(store().folder("ann", "tea", 1).orElseThrow().files()).containsOnlyKeys(SkillPath.SKILL_MD);
    }

    @Test
    void aFileIsAddedReplacedAndRemovedEachByANewVersionAndSkillMdStays() {
        store().write(ANN, folder("tea", "Brew tea.", Map.of("references/a.md", "A\n")), BY_HAND);
        store().putFile(ANN, "tea", SkillPath.of("references/a.md"), utf8("A2\n"), BY_HAND);
        Written removed = store().removeFile(ANN, "tea", SkillPath.of("references/a.md"), BY_HAND);

        assertThat(removed.version().version()).isEqualTo(3);
        assertThat(removed.version().files()).extracting(f -> f.path().value()).containsExactly("SKILL.md");
        assertThat(text("ann", "tea", 1, "references/a.md")).isEqualTo("A\n");
        assertThat(text("ann", "tea", 2, "references/a.md")).isEqualTo("A2\n");
        assertThatThrownBy(() -> store().removeFile(ANN, "tea", SkillPath.SKILL_MD, BY_HAND)).isInstanceOf(SkillException.class)
                .hasMessageContaining("SKILL.md cannot be removed");
        assertThatThrownBy(() -> store().removeFile(ANN, "tea", SkillPath.of("references/a.md"), BY_HAND))
                .isInstanceOfSatisfying(SkillException.class, e -> assertThat(e.kind()).isEqualTo(SkillException.Kind.NOT_FOUND));
        assertThatThrownBy(() -> store().putFile(ANN, "coffee", SkillPath.of("scripts/x.py"), utf8("x"), BY_HAND))
                .isInstanceOfSatisfying(SkillException.class, e -> assertThat(e.kind()).isEqualTo(SkillException.Kind.NOT_FOUND));
        assertThat(store().history("ann", "tea")).hasSize(3);
        assertThat(store().history("ann", "coffee")).isEmpty();
    }

    @Test
    void aRefusedWriteNamesItsProblemsAndWritesNothing() {
        store().write(ANN, folder("tea", "Brew tea.", Map.of()), BY_HAND);
        SkillStore small = anotherStore(new SkillLimits(3, 1024, 4096, 0));

        assertThatThrownBy(() -> store().putFile(ANN, "tea", SkillPath.SKILL_MD, utf8("---\nname: tea\nauthor: x\n---\n"), BY_MODEL))
                .isInstanceOfSatisfying(SkillException.class, e -> {
                    assertThat(e.kind()).isEqualTo(SkillException.Kind.INVALID);
                    assertThat(e.problems()).hasSize(2).anySatisfy(p -> assertThat(p).contains("no description"))
                            .anySatisfy(p -> assertThat(p).contains("\"author\""));
                });
        assertThatThrownBy(() -> small.putFile(ANN, "tea", SkillPath.of("assets/big.bin"), new byte[2048], BY_MODEL))
                .isInstanceOfSatisfying(SkillException.class, e -> assertThat(e.kind()).isEqualTo(SkillException.Kind.TOO_LARGE));
        assertThat(store().history("ann", "tea")).hasSize(1);
        assertThatThrownBy(() -> store().putFile(ANN, "../etc", SkillPath.SKILL_MD, utf8(skillMd("etc", "x")), BY_MODEL))
                .isInstanceOf(SkillException.class).hasMessageContaining("is not allowed");
        assertThat(store().current("ann", "../etc")).isEmpty();
        assertThat(store().history("ann", "Bad Name")).isEmpty();
    }

    @Test
    void aDeleteKeepsEveryVersionAndARestoreBringsTheSkillBackAsANewVersion() {
        store().write(ANN, folder("tea", "First.", Map.of("assets/a.txt", "a")), BY_HAND);
        store().write(ANN, folder("tea", "Second.", Map.of()), BY_MODEL);
        SkillVersion deleted = store().delete(ANN, "tea", BY_MODEL).orElseThrow();

        assertThat(deleted.version()).isEqualTo(3);
        assertThat(deleted.deleted()).isTrue();
        assertThat(deleted.files()).isEmpty();
        assertThat(deleted.description()).isEqualTo("Second.");
        assertThat(store().delete(ANN, "tea", BY_MODEL)).as("nothing live to delete").isEmpty();
        assertThat(store().current("ann", "tea")).isEmpty();
        assertThat(store().list("ann")).isEmpty();
        assertThat(store().deleted("ann")).extracting(SkillSummary::name, SkillSummary::version, SkillSummary::description)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("tea", 3, "Second."));
        assertThat(store().deleted("bob")).isEmpty();
        assertThat(store().history("ann", "tea")).extracting(SkillVersion::version).containsExactly(3, 2, 1);
        assertThat(store().folder("ann", "tea", 3)).isEmpty();

        Written restored = store().restore(ANN, "tea", 1, BY_HAND);

        assertThat(restored.outcome()).isEqualTo(Written.Outcome.CREATED);
        assertThat(restored.version().version()).isEqualTo(4);
        assertThat(restored.version().source().restoredFrom()).isEqualTo(1);
        assertThat(text("ann", "tea", 4, "assets/a.txt")).isEqualTo("a");
        assertThat(store().list("ann")).extracting(SkillSummary::name).containsExactly("tea");
        assertThat(store().deleted("ann")).isEmpty();
        assertThatThrownBy(() -> store().restore(ANN, "tea", 3, BY_HAND)).isInstanceOf(SkillException.class)
                .hasMessageContaining("the one that deleted it");
        assertThatThrownBy(() -> store().restore(ANN, "tea", 9, BY_HAND))
                .isInstanceOfSatisfying(SkillException.class, e -> assertThat(e.kind()).isEqualTo(SkillException.Kind.NOT_FOUND));
    }

    @Test
    void eachContentIsStoredOnceWhateverVersionsAndPathsUseIt() throws SQLException {
        String big = "x".repeat(10_000);
        for (int i = 0; i < 5; i++) {
            store().write(ANN, folder("tea", "Version " + i + ".", Map.of("assets/big.txt", big, "assets/copy.txt", big)), BY_MODEL);
        }

        assertThat(store().history("ann", "tea")).hasSize(5);
        assertThat(count("SELECT COUNT(*) FROM skill_blobs WHERE sha256 = '" + Sha256.hex(utf8(big)) + "'")).isEqualTo(1);
        assertThat(count("SELECT COUNT(*) FROM skill_blobs")).as("the big file once, and five SKILL.md").isEqualTo(6);
    }

    @Test
    void anotherPersonsSkillAnswersExactlyAsAMissingOne() {
        store().write(ANN, folder("tea", "Ann's tea.", Map.of()), BY_HAND);

        assertThat(store().list("bob")).isEmpty();
        assertThat(store().current("bob", "tea")).isEmpty();
        assertThat(store().history("bob", "tea")).isEmpty();
        assertThat(store().folder("bob", "tea", 1)).isEmpty();
        assertThat(store().search("bob", List.of("tea"))).isEmpty();
        assertThat(store().delete(BOB, "tea", BY_HAND)).isEmpty();
        assertThatThrownBy(() -> store().restore(BOB, "tea", 1, BY_HAND))
                .isInstanceOfSatisfying(SkillException.class, e -> assertThat(e.kind()).isEqualTo(SkillException.Kind.NOT_FOUND));
        assertThatThrownBy(() -> store().putFile(BOB, "tea", SkillPath.of("scripts/x.sh"), utf8("x"), BY_HAND))
                .isInstanceOfSatisfying(SkillException.class, e -> assertThat(e.kind()).isEqualTo(SkillException.Kind.NOT_FOUND));

        store().write(BOB, folder("tea", "Bob's tea.", Map.of()), BY_HAND);
        assertThat(store().current("ann", "tea").orElseThrow().description()).isEqualTo("Ann's tea.");
        assertThat(store().current("bob", "tea").orElseThrow().description()).isEqualTo("Bob's tea.");
        assertThat(store().history("ann", "tea")).hasSize(1);
    }

    @Test
    void theTeamLibraryIsReadByEveryoneAfterTheirOwnAndChangedOnlyByAdmins() {
        store().write(ADMIN, folder("review", "Team review.", Map.of("references/rules.md", "Be kind.\n")), BY_HAND);
        store().write(ADMIN, folder("tea", "Team tea.", Map.of()), BY_HAND);
        store().write(ANN, folder("tea", "Ann's tea.", Map.of()), BY_HAND);
        store().write(ANN, folder("mine", "Ann's own.", Map.of()), BY_HAND);

        assertThatThrownBy(() -> store().publish(ANN, "mine", BY_HAND))
                .isInstanceOfSatisfying(SkillException.class, e -> assertThat(e.kind()).isEqualTo(SkillException.Kind.FORBIDDEN));
        assertThatThrownBy(() -> store().unpublish(ANN, "mine", BY_HAND))
                .isInstanceOfSatisfying(SkillException.class, e -> assertThat(e.kind()).isEqualTo(SkillException.Kind.FORBIDDEN));
        store().publish(ADMIN, "review", BY_HAND);
        store().publish(ADMIN, "tea", BY_HAND);

        assertThat(store().list("ann")).extracting(SkillSummary::name, SkillSummary::team)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("mine", false), org.assertj.core.groups.Tuple.tuple("tea", false),
                        org.assertj.core.groups.Tuple.tuple("review", true));
        assertThat(store().list("bob")).extracting(SkillSummary::name).containsExactly("review", "tea");
        assertThat(store().current("bob", "tea").orElseThrow().description()).isEqualTo("Team tea.");
        assertThat(store().current("bob", "review").orElseThrow().team()).isTrue();
        assertThat(store().search("bob", List.of("review"))).extracting(SkillSummary::name).containsExactly("review");
        assertThat(store().delete(BOB, "review", BY_HAND)).as("a team skill is not Bob's to delete").isEmpty();

        // A change by a person makes their own copy; the team's stays as it is.
        Written own = store().putFile(BOB, "review", SkillPath.of("references/mine.md"), utf8("Mine.\n"), BY_MODEL);
        assertThat(own.version().owner()).isEqualTo("bob");
        assertThat(own.version().version()).isEqualTo(1);
        assertThat(own.version().files()).extracting(f -> f.path().value()).containsExactly("SKILL.md", "references/mine.md", "references/rules.md");
        assertThat(store().current("ann", "review").orElseThrow().files()).hasSize(2);

        assertThat(store().unpublish(ADMIN, "tea", BY_HAND)).isPresent();
        assertThat(store().list("bob")).extracting(SkillSummary::name).containsExactly("review");
        assertThat(store().history("bob", "tea")).as("the team's history, deleted").first().satisfies(v -> assertThat(v.deleted()).isTrue());
    }

    @Test
    void concurrentWritesToOneSkillFromTwoInstancesEndAsConsecutiveVersionsNoneLost() throws Exception {
        SkillStore one = store();
        SkillStore two = anotherStore(SkillLimits.DEFAULT);
        one.write(ANN, folder("tea", "Brew tea.", Map.of()), BY_HAND);
        int writes = 30;
        CyclicBarrier start = new CyclicBarrier(2);
        try (ExecutorService threads = Executors.newFixedThreadPool(2)) {
            List<Future<?>> done = new ArrayList<>();
            for (SkillStore instance : List.of(one, two)) {
                String who = instance == one ? "one" : "two";
                done.add(threads.submit(() -> {
                    start.await();
                    for (int i = 0; i < writes; i++) {
                        instance.putFile(ANN, "tea", SkillPath.of("references/" + who + "-" + i + ".md"), utf8(who + " " + i), BY_MODEL);
                    }
                    return null;
                }));
            }
            for (Future<?> future : done) {
                future.get(120, TimeUnit.SECONDS);
            }
        }

        List<SkillVersion> history = one.history("ann", "tea");
        assertThat(history).extracting(SkillVersion::version).as("one version per write, numbered without a gap")
                .isEqualTo(java.util.stream.IntStream.rangeClosed(1, 1 + 2 * writes).boxed().sorted(java.util.Comparator.reverseOrder()).toList());
        assertThat(history.getFirst().files()).as("every file of every write, none lost").hasSize(1 + 2 * writes);
        for (int v = 2; v <= 1 + 2 * writes; v++) {
            int version = v;
            assertThat(history.stream().filter(h -> h.version() == version).findFirst().orElseThrow().files()).hasSize(version);
        }
    }

    @Test
    void aSettingPrunesOldVersionsTheModelMadeButNeverTheNewestNorOnesMadeByHand() throws SQLException {
        SkillStore pruning = anotherStore(new SkillLimits(200, 1 << 20, 1 << 22, 3));
        pruning.write(ANN, folder("tea", "By hand.", Map.of("assets/hand.txt", "hand")), BY_HAND);
        for (int i = 1; i <= 6; i++) {
            pruning.write(ANN, folder("tea", "Model " + i + ".", Map.of("assets/model.txt", "model " + i)), BY_MODEL);
        }

        assertThat(pruning.history("ann", "tea")).extracting(SkillVersion::version).containsExactly(7, 6, 5, 1);
        assertThat(text("ann", "tea", 1, "assets/hand.txt")).isEqualTo("hand");
        assertThat(count("SELECT COUNT(*) FROM skill_blobs WHERE sha256 = '" + Sha256.hex(utf8("model 1")) + "'"))
                .as("a content no version uses any more is removed").isZero();
        assertThat(count("SELECT COUNT(*) FROM skill_blobs WHERE sha256 = '" + Sha256.hex(utf8("hand")) + "'")).isEqualTo(1);
    }

    @Test
    void searchMatchesEveryWordInNameDescriptionOrSkillMdIgnoringCase() {
        store().write(ANN, folder("pdf-tables", "Extracts tables from PDFs.", Map.of()), BY_HAND);
        store().putFile(ANN, "pdf-tables", SkillPath.SKILL_MD, utf8(skillMd("pdf-tables", "Extracts tables from PDFs.") + "Uses Camelot.\n"), BY_HAND);
        store().write(ANN, folder("csv-cleanup", "Cleans CSV files.", Map.of()), BY_HAND);

        assertThat(store().search("ann", List.of("CAMELOT", "tables"))).extracting(SkillSummary::name).containsExactly("pdf-tables");
        assertThat(store().search("ann", List.of(" "))).hasSize(2);
        assertThat(store().search("ann", List.of("video"))).isEmpty();
    }

    @Test
    void writeAllWritesSeveralSkillsInOneGo() {
        List<Written> written = store().writeAll(ANN, List.of(folder("a", "A.", Map.of()), folder("b", "B.", Map.of())),
                VersionSource.of(VersionSource.Door.IMPORT));

        assertThat(written).extracting(w -> w.version().name()).containsExactly("a", "b");
        assertThat(store().list("ann")).hasSize(2);
        assertThat(store().history("ann", "a").getFirst().source().door()).isEqualTo(VersionSource.Door.IMPORT);
    }

    private long count(String sql) throws SQLException {
        try (Connection connection = plainConnection(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        }
    }

    /** A plain connection on the test's database, to look at the tables themselves. */
    protected abstract Connection plainConnection() throws SQLException;
}
