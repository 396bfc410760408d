package dev.skillforge.server.store;

import dev.skillforge.core.transcript.Attachment;
import dev.skillforge.server.people.Caller;
import dev.skillforge.server.search.SearchQuery;
import dev.skillforge.server.search.SearchSource;
import dev.skillforge.core.transcript.StorableText;
import dev.skillforge.server.document.Documents;
import dev.skillforge.server.store.ConversationRecord.Branch;
import dev.skillforge.server.store.ConversationStore.Renewal;
import dev.skillforge.server.store.Write.AppendEntry;
import dev.skillforge.server.store.Write.CreateConversation;
import dev.skillforge.server.store.Write.DeleteConversation;
import dev.skillforge.server.store.Write.PutTurn;
import dev.skillforge.server.store.Write.SetTitle;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The conformance suite of {@link ConversationStore}: every implementation's test extends it and
 * says how to open a store on a fresh, empty database. No mocks: each subclass runs it against a
 * real database.
 */
abstract class ConversationStoreContract {

    private final List<ConversationStore> opened = new ArrayList<>();
    private ConversationStore store;

    /**
     * Opens a new store, with its own connection pool, on this test's database. Every call in one
     * test reaches the same database (as two server instances would), empty at the test's start.
     */
    protected abstract ConversationStore openStore();

    /** This test's database as Flyway and plain JDBC reach it (empty until a store opens it): for tests of a migration. */
    protected abstract Address address();

    /** A database's JDBC URL, user (or {@code null}) and the Flyway location of its own kind's migrations. */
    protected record Address(String url, String user, String ownMigrations) {
    }

    /** The store under test, opened on first use. */
    protected final ConversationStore store() {
        if (store == null) {
            store = anotherStore();
        }
        return store;
    }

    /** A second store on the same database, as another server instance would have. */
    protected final ConversationStore anotherStore() {
        ConversationStore next = openStore();
        opened.add(next);
        return next;
    }

    @AfterEach
    void closeStores() {
        opened.reversed().forEach(ConversationStore::close);
        opened.clear();
        store = null;
    }

    // ------------------------------------------------------------------------- helpers

    static ConversationRecord conversation(String id, long updatedAt) {
        return new ConversationRecord(id, "Title of " + id, "You forge skills.\n", "sim", "sim-1", 1_000, updatedAt, Caller.LOCAL_ID);
    }

    static StoredEntry entry(String conversationId, int seq, String content) {
        return new StoredEntry(conversationId, seq, seq / 2, seq % 2 == 0 ? "user" : "assistant", content, null, null,
                10_000 + seq);
    }

    static StoredEntry entryAt(String conversationId, int seq, long createdAt) {
        return new StoredEntry(conversationId, seq, 0, "user", "entry " + seq, null, null, createdAt);
    }

    static TurnRecord turn(String conversationId, int turn, String status) {
        return new TurnRecord(conversationId, turn, status, 20_000 + turn, null, null);
    }

    private void create(String id, long updatedAt) {
        store().apply(List.of(new CreateConversation(conversation(id, updatedAt))));
    }

    private void append(StoredEntry... entries) {
        store().apply(Arrays.stream(entries).<Write>map(AppendEntry::new).toList());
    }

    private long updatedAt(String id) {
        return store().conversation(id).orElseThrow().updatedAtMillis();
    }

    // ---------------------------------------------------------------- transactions

    @Test
    void aWriteThatFailsWithAnErrorLeavesNothingWrittenAndStatementsKeptPreparedReadWhatIsThere() {
        Transactions transactions = new Transactions(((JdbcConversationStore) store()).database());
        String read = "SELECT micro_usd FROM spend WHERE person_id = ? AND month = ?";

        assertThatThrownBy(() -> transactions.write("count a spend and break", connection -> {
            Transactions.update(connection, "INSERT INTO spend (person_id, month, micro_usd) VALUES (?, ?, ?)", "ada", "2026-11", 5);
            throw new AssertionError("the work broke after its insert"); // an Error, not an exception
        })).isInstanceOf(AssertionError.class);

        // The connection went back to its pool with auto-commit on again: had the transaction stayed open, that would
        // have committed the insert.
        assertThat(transactions.rows("read the spend", read, row -> row.getLong(1), "ada", "2026-11")).isEmpty();
        transactions.write("count a spend", connection ->
                Transactions.update(connection, "INSERT INTO spend (person_id, month, micro_usd) VALUES (?, ?, ?)", "ada", "2026-11", 7));
        assertThat(transactions.rows("read the spend", read, row -> row.getLong(1), "ada", "2026-11")).containsExactly(7L);
        transactions.update("count more", "UPDATE spend SET micro_usd = micro_usd + ? WHERE person_id = ?", 3, "ada");
        assertThat(transactions.rows("read the spend", read, row -> row.getLong(1), "ada", "2026-11")).containsExactly(10L);
        assertThat(transactions.rowsOnce("read the spend once", read, row -> row.getLong(1), "ada", "2026-11")).containsExactly(10L);
    }

    // ---------------------------------------------------------------- conversations

    @Test
    void createsAndReadsAConversation() {
        ConversationRecord record = new ConversationRecord("c-1", "Cold brew", "System prompt \r\n\t ", "openai",
                "gpt-4o-mini", 1_700_000_000_000L, 1_700_000_000_123L, Caller.LOCAL_ID);

        store().apply(List.of(new CreateConversation(record)));

        assertThat(store().conversation("c-1")).contains(record);
        assertThat(store().count(Caller.LOCAL_ID)).isEqualTo(1);
    }

    @Test
    void aForkKeepsItsThreadWhereItCameFromAndItsCacheKey() {
        ConversationRecord fork = new ConversationRecord("c-2", "Cold brew", "prompt", "sim", "sim-1", 5, 6,
                new Branch("c-1", "c-1", 3), "c-1/c-2", Caller.LOCAL_ID);

        store().apply(List.of(new CreateConversation(fork)));

        assertThat(store().conversation("c-2")).contains(fork);
        assertThat(store().conversation("c-2").orElseThrow().cacheKey()).isEqualTo("c-1/c-2");
        assertThat(store().conversation("c-2").orElseThrow().branch()).isEqualTo(new Branch("c-1", "c-1", 3));
        create("c-1", 100);
        assertThat(store().conversation("c-1").orElseThrow().branch()).as("nobody's fork: a thread of its own").isEqualTo(Branch.root("c-1"));
    }

    // ---------------------------------------------------------------------- threads

    /** A conversation nobody forked, made and last active at {@code at}. */
    private static ConversationRecord root(String id, long at) {
        return new ConversationRecord(id, "Title of " + id, "You forge skills.\n", "sim", "sim-1", at, at, Caller.LOCAL_ID);
    }

    /** A fork of {@code from} (a branch of its thread) before turn {@code turn}, made at {@code at}. */
    private static ConversationRecord fork(ConversationRecord from, String id, int turn, long at) {
        return new ConversationRecord(id, from.title(), from.systemPrompt(), from.provider(), from.model(), at, at,
                Branch.forkOf(from, turn), from.branch().threadId() + "/" + id, from.owner());
    }

    @Test
    void theListShowsEachThreadOnceAsItsBranchSelectedLastWithTheThreadsLastActivity() {
        ConversationRecord root = root("t-1", 100);
        ConversationRecord edited = fork(root, "t-2", 1, 200);
        ConversationRecord regenerated = fork(edited, "t-3", 1, 300);
        store().apply(List.of(new CreateConversation(root), new CreateConversation(edited), new CreateConversation(regenerated),
                new CreateConversation(root("o-1", 250))));

        assertThat(rows()).as("a new branch is the one its thread shows").containsExactly("t-3@300", "o-1@250");
        assertThat(store().count(Caller.LOCAL_ID)).as("threads, not branches").isEqualTo(2);

        store().apply(List.of(new Write.SelectBranch("t-1", 400)));
        assertThat(rows()).as("switched back: not new activity").containsExactly("t-1@300", "o-1@250");
        store().apply(List.of(new Write.SelectBranch("t-1", 50), new Write.SelectBranch("t-2", 350)));
        assertThat(rows()).as("an earlier choice does not undo a later one").containsExactly("t-1@300", "o-1@250");

        store().apply(List.of(new AppendEntry(entryAt("t-2", 2, 500))));
        assertThat(rows()).as("any branch's activity is the thread's").containsExactly("t-1@500", "o-1@250");
        store().apply(List.of(new AppendEntry(entryAt("o-1", 0, 600))));
        assertThat(store().conversations(Caller.LOCAL_ID, 1, 1)).extracting(ConversationRecord::id).containsExactly("t-1");

        store().apply(List.of(new Write.DeleteConversation("t-1")));
        assertThat(rows()).as("the thread's other branches are still listed").containsExactly("o-1@600", "t-2@500");
    }

    private List<String> rows() {
        return store().conversations(Caller.LOCAL_ID, 10, 0).stream().map(c -> c.id() + "@" + c.updatedAtMillis()).toList();
    }

    @Test
    void aThreadsBranchesComeOldestFirstWithTheirForkPointsAndTurnsAndNoneForAnotherPerson() {
        ConversationRecord root = root("t-1", 100);
        ConversationRecord edited = fork(root, "t-2", 1, 200);
        ConversationRecord bobs = new ConversationRecord("b-1", "Bob's", "prompt", "sim", "sim-1", 1, 1, "bob");
        store().apply(List.of(new CreateConversation(root), new CreateConversation(edited), new CreateConversation(bobs),
                new PutTurn(turn("t-1", 0, "complete")), new PutTurn(turn("t-1", 1, "complete")),
                new PutTurn(turn("t-2", 0, "complete")), new PutTurn(turn("t-2", 1, "running")),
                new Write.SelectBranch("t-1", 700)));

        assertThat(store().thread(Caller.LOCAL_ID, "t-1")).containsExactly(
                new BranchRecord("t-1", null, 0, 100, 700, 2),
                new BranchRecord("t-2", "t-1", 1, 200, 200, 2));
        assertThat(store().thread("bob", "t-1")).as("another person's thread").isEmpty();
        assertThat(store().conversation("bob", "t-2")).as("another person's branch").isEmpty();
        assertThat(store().conversations("bob", 10, 0)).extracting(ConversationRecord::id).containsExactly("b-1");
        assertThat(store().conversations(Caller.LOCAL_ID, 10, 0)).extracting(ConversationRecord::id).containsExactly("t-1");
        assertThat(store().count("bob")).isEqualTo(1);
    }

    @Test
    void searchShowsOneRowPerThreadTheMatchingBranchSelectedLast() {
        ConversationRecord root = root("t-1", 100);
        ConversationRecord edited = fork(root, "t-2", 1, 200);
        store().apply(List.of(new CreateConversation(root), new CreateConversation(edited)));
        append(entry("t-1", 0, "How do I make cold brew?"), entry("t-1", 1, "Steep it."), entry("t-1", 2, "Longer, please"),
                entry("t-2", 0, "How do I make cold brew?"), entry("t-2", 1, "Steep it."), entry("t-2", 2, "Shorter, please"));

        assertThat(search(Caller.LOCAL_ID, "brew", 10)).as("the shared prefix matches once").containsExactly("t-2");
        assertThat(search(Caller.LOCAL_ID, "longer", 10)).as("what only one branch has").containsExactly("t-1");
        store().apply(List.of(new Write.SelectBranch("t-1", 9_000)));
        assertThat(search(Caller.LOCAL_ID, "brew", 10)).containsExactly("t-1");
        assertThat(search("bob", "brew", 10)).isEmpty();
    }

    @Test
    void forksMadeBeforeBranchesExistedBecomeBranchesOfTheirThreadWhenTheSchemaIsMigrated() throws SQLException {
        Address database = address();
        Flyway.configure().dataSource(database.url(), database.user(), null).locations("classpath:db/migration", database.ownMigrations())
                .target("9").load().migrate();
        try (Connection connection = DriverManager.getConnection(database.url(), database.user(), null);
             Statement statement = connection.createStatement()) {
            // A conversation, its edited copy (turn 1 its own), a regenerated copy of that (made before it had a turn of its own).
            statement.execute("INSERT INTO conversations (id, title, system_prompt, provider, model, created_at, updated_at, forked_from,"
                    + " cache_key, owner) VALUES ('c-1', 'Brew', 'p', 'sim', 'm', 1000, 5000, NULL, NULL, 'local'),"
                    + " ('c-2', 'Brew', 'p', 'sim', 'm', 3000, 4000, 'c-1', 'c-1/c-2', 'local'),"
                    + " ('c-3', 'Brew', 'p', 'sim', 'm', 6000, 6000, 'c-2', 'c-1/c-3', 'local'),"
                    + " ('o-1', 'Other', 'p', 'sim', 'm', 100, 100, NULL, NULL, 'local')");
            statement.execute("INSERT INTO turns (conversation_id, turn, status, started_at) VALUES ('c-1', 0, 'complete', 1100),"
                    + " ('c-1', 1, 'complete', 1200), ('c-2', 0, 'complete', 1100), ('c-2', 1, 'complete', 3500),"
                    + " ('c-3', 0, 'complete', 1100), ('c-3', 1, 'complete', 3500)");
        }

        assertThat(rows()).as("the branch active last is shown").containsExactly("c-3@6000", "o-1@100");
        assertThat(store().thread(Caller.LOCAL_ID, "c-1")).containsExactly(
                new BranchRecord("c-1", null, 0, 1_000, 5_000, 2),
                new BranchRecord("c-2", "c-1", 1, 3_000, 4_000, 2),
                new BranchRecord("c-3", "c-2", 2, 6_000, 6_000, 2));
        assertThat(store().conversation("c-3").orElseThrow().branch()).isEqualTo(new Branch("c-1", "c-2", 2));
        assertThat(store().conversation("o-1").orElseThrow().branch()).isEqualTo(Branch.root("o-1"));
    }

    @Test
    void userMessagesAreTheMessagesOfOneTurnOfEachConversationThatHasIt() {
        create("c-1", 100);
        create("c-2", 100);
        create("c-3", 100);
        append(entry("c-1", 0, "first"), entry("c-1", 1, "answer"), entry("c-1", 2, "second of c-1"),
                entry("c-2", 0, "first"), entry("c-2", 1, "answer"), entry("c-2", 2, "second of c-2"),
                entry("c-3", 0, "only one turn"));

        assertThat(store().userMessages(List.of("c-1", "c-2", "c-3"), 1))
                .isEqualTo(java.util.Map.of("c-1", "second of c-1", "c-2", "second of c-2"));
        assertThat(store().userMessages(List.of(), 0)).isEmpty();
    }

    // ------------------------------------------------------------------------ search

    private List<String> search(String text) {
        return search(Caller.LOCAL_ID, text, 10);
    }

    private List<String> search(String owner, String text, int limit) {
        return store().search(owner, SearchQuery.parse(text), limit).stream().map(found -> found.record().id()).toList();
    }

    private FoundConversation found(String text) {
        List<FoundConversation> found = store().search(Caller.LOCAL_ID, SearchQuery.parse(text), 10);
        assertThat(found).hasSize(1);
        return found.getFirst();
    }

    @Test
    void searchFindsEveryTermSomewhereInTheConversationNewestFirst() {
        create("coffee", 300);
        create("bread", 200);
        create("old-coffee", 100);
        append(entry("coffee", 0, "How do I make cold brew?"), entry("coffee", 1, "Steep it twelve hours."),
                entry("bread", 0, "Sourdough starter care"), entry("bread", 1, "Feed it daily."),
                entry("old-coffee", 0, "Brewing coffee the old way"));

        assertThat(search("brew")).containsExactly("coffee", "old-coffee"); // "brew" starts "Brewing"
        assertThat(search("TWELVE hours")).containsExactly("coffee");
        assertThat(search("title of bread")).containsExactly("bread"); // the title
        assertThat(search("cold twelve")).as("in two entries of one conversation").containsExactly("coffee");
        assertThat(search("bread brew")).as("a title's word and a message's").isEmpty(); // bread's title, coffee's message
        assertThat(search("daily brew")).as("in two conversations").isEmpty();
        assertThat(search("rew")).as("the start of a word, not its middle").isEmpty();
        assertThat(search(Caller.LOCAL_ID, "brew", 1)).containsExactly("coffee");
        assertThat(search("brew \" OR * - ( : NEAR")).isEmpty(); // no match syntax reaches the database: "or", "near" are words
        store().apply(List.of(new Write.DeleteConversation("coffee")));
        assertThat(search("twelve")).isEmpty(); // gone with its conversation
    }

    @Test
    void searchFindsAnswersCommandOutputAndAttachedDocumentsAndSaysWhichEntry() {
        create("c-1", 100);
        byte[] pdfText = "Quarterly figures\nThe zeppelin budget rose by 12%.\n".getBytes(StandardCharsets.UTF_8);
        Attachment report = attachment("report-2026.pdf", pdfText);
        store().apply(List.of(new AppendEntry(userEntryWith("c-1", 0, report), List.of(new AttachmentFile(report.sha256(), pdfText))),
                new AppendEntry(new StoredEntry("c-1", 1, 0, "assistant", "Looking.\n<shell>skill list</shell>", null, null, 1)),
                new AppendEntry(new StoredEntry("c-1", 2, 0, "tool", "$ skill list\nmarmalade-maker", null, null, 2)),
                new AppendEntry(new StoredEntry("c-1", 3, 0, "context", "Left out: quokka", "keep-from", "2", 3))));

        FoundConversation byDocument = found("zeppelin");
        assertThat(byDocument.sources()).singleElement().satisfies(source -> {
            assertThat(source.seq()).isZero();
            assertThat(source.kind()).isEqualTo("attachment");
            assertThat(source.name()).isEqualTo("report-2026.pdf");
            assertThat(source.sha256()).isEqualTo(report.sha256());
            assertThat(source.text()).contains("The zeppelin budget").doesNotContain("<document");
        });
        assertThat(found("report").sources()).as("a document's name").extracting(SearchSource::kind).containsExactly("attachment");
        assertThat(found("marmalade").sources()).extracting(SearchSource::kind, SearchSource::seq).containsExactly(tuple("tool", 2));
        assertThat(found("shell").sources()).extracting(SearchSource::kind, SearchSource::seq).containsExactly(tuple("assistant", 1));
        assertThat(search("document")).as("the wrapping around a document's text").isEmpty();
        assertThat(search("quokka")).as("a context cut's note only repeats what was said").isEmpty();
        assertThat(search("zeppelin marmalade skill")).containsExactly("c-1");

        store().apply(List.of(new Write.DeleteConversation("c-1")));
        assertThat(search("zeppelin")).isEmpty();
    }

    @Test
    void searchNeverFindsAnotherPersonsConversation() {
        store().apply(List.of(new CreateConversation(new ConversationRecord("mine", "Budget", "p", "sim", "sim-1", 1, 2, Caller.LOCAL_ID)),
                new CreateConversation(new ConversationRecord("theirs", "Budget", "p", "sim", "sim-1", 1, 3, "someone-else"))));
        append(entry("mine", 0, "the zeppelin budget"), entry("theirs", 0, "the zeppelin budget"));

        assertThat(search("zeppelin budget")).containsExactly("mine");
        assertThat(search("someone-else", "zeppelin", 10)).containsExactly("theirs");
        assertThat(search("nobody", "zeppelin", 10)).isEmpty();
    }

    @Test
    void aPhraseFindsItsWordsInARowAndPunctuationIsNeverAWildcard() {
        create("c-1", 100);
        append(entry("c-1", 0, "Use snake_case names and cold brew; 100% of the time."), entry("c-1", 1, "brew it cold"));

        assertThat(search("\"cold brew\"")).containsExactly("c-1");
        assertThat(search("\"cold bre")).as("an unclosed quote runs to the end; the last word a prefix").containsExactly("c-1");
        assertThat(search("\"brew names\"")).isEmpty();
        assertThat(search("snake_case")).containsExactly("c-1");
        assertThat(search("snake%case")).as("% is punctuation, as _ is").containsExactly("c-1");
        assertThat(search("snake_names")).as("_ is no one-character wildcard").isEmpty();
        assertThat(search("100%")).containsExactly("c-1");
        assertThat(search("s.*e")).as("no regular expression either: the words s and e in a row").isEmpty();
    }

    @Test
    void searchFollowsRenamesAndCaseButNotDiacritics() {
        create("c-1", 100);
        append(entry("c-1", 0, "Das Café an der Straße"), entry("c-1", 1, "ÉCOLE ΣΟΦΙΑ"));

        assertThat(search("CAFÉ")).containsExactly("c-1");
        assertThat(search("école σοφια")).as("case aside beyond ASCII too").containsExactly("c-1");
        assertThat(search("cafe")).as("diacritics count, on both databases").isEmpty();
        assertThat(search("title")).containsExactly("c-1");
        store().apply(List.of(new SetTitle("c-1", "Weekend plans", 200)));
        assertThat(search("title")).isEmpty();
        assertThat(search("weekend")).containsExactly("c-1");
    }

    @Test
    void eachTextIsSearchedInItsFirstHundredThousandCharacters() {
        create("c-1", 100);
        String filler = "word ".repeat(19_998); // 99,990 characters
        append(entry("c-1", 0, filler + "early " + "x".repeat(10) + " late"));

        assertThat(search("early")).containsExactly("c-1");
        assertThat(search("late")).isEmpty();
        assertThat(found("early").sources().getFirst().text()).hasSize(100_000);
    }

    @Test
    void aConversationMayHaveNoTitleProviderOrModel() {
        ConversationRecord record = new ConversationRecord("c-1", null, "prompt", null, null, 5, 6, Caller.LOCAL_ID);

        store().apply(List.of(new CreateConversation(record)));

        assertThat(store().conversation("c-1")).contains(record);
    }

    @Test
    void anUnknownConversationHasNothing() {
        assertThat(store().conversation("nope")).isEmpty();
        assertThat(store().entries("nope")).isEmpty();
        assertThat(store().turns("nope")).isEmpty();
        assertThat(store().count(Caller.LOCAL_ID)).isZero();
        assertThat(store().conversations(Caller.LOCAL_ID, 10, 0)).isEmpty();
    }

    @Test
    void creatingAnExistingConversationAgainChangesNothing() {
        create("c-1", 100);
        ConversationRecord first = store().conversation("c-1").orElseThrow();

        store().apply(List.of(new CreateConversation(
                new ConversationRecord("c-1", "Other", "Other prompt", "gemini", "g", 7, 9_999, Caller.LOCAL_ID))));

        assertThat(store().conversation("c-1")).contains(first);
        assertThat(store().count(Caller.LOCAL_ID)).isEqualTo(1);
    }

    @Test
    void listsTheMostRecentlyUpdatedFirstWithTiesInIdOrder() {
        create("c-b", 100);
        create("c-a", 100);
        create("c-c", 300);
        create("c-d", 200);
        create("C-e", 100); // code point order: upper case before lower case, whatever the locale

        List<String> all = store().conversations(Caller.LOCAL_ID, 10, 0).stream().map(ConversationRecord::id).toList();

        assertThat(all).containsExactly("c-c", "c-d", "C-e", "c-a", "c-b");
        assertThat(store().count(Caller.LOCAL_ID)).isEqualTo(5);
    }

    @Test
    void pagesThroughTheList() {
        for (int i = 0; i < 25; i++) {
            create("c-%02d".formatted(i), 1_000 + i);
        }
        List<String> expected = IntStream.iterate(24, i -> i >= 0, i -> i - 1).mapToObj("c-%02d"::formatted).toList();

        List<String> paged = new ArrayList<>();
        for (int offset = 0; offset < 25; offset += 10) {
            store().conversations(Caller.LOCAL_ID, 10, offset).forEach(c -> paged.add(c.id()));
        }

        assertThat(paged).isEqualTo(expected);
        assertThat(store().conversations(Caller.LOCAL_ID, 10, 20)).hasSize(5);
        assertThat(store().conversations(Caller.LOCAL_ID, 10, 25)).isEmpty();
        assertThat(store().conversations(Caller.LOCAL_ID, 0, 0)).isEmpty();
        assertThatThrownBy(() -> store().conversations(Caller.LOCAL_ID, -1, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    // ---------------------------------------------------------------------- entries

    @Test
    void entriesComeBackInSeqOrderExactlyAsWritten() {
        create("c-1", 100);
        List<String> contents = List.of(
                "plain",
                "unicode: Grüße, 日本語, עברית, Ελληνικά",
                "emoji: 🧪🔥👩🏽‍💻 and a flag 🇨🇿",
                "control chars: \u0001\u0002\u0007\b\u000b\f\u001b[31m\u001f\u007f\u0085",
                "trailing whitespace   \t \n\n",
                "CRLF line\r\nand another\r\n",
                "<shell>skill list</shell>\n<shell>cat 'a \"quoted\" file'</shell>",
                "",
                "  leading whitespace and a lone CR\r");
        List<StoredEntry> written = new ArrayList<>();
        for (int seq = 0; seq < contents.size(); seq++) {
            written.add(new StoredEntry("c-1", seq, seq / 3, List.of("user", "assistant", "tool").get(seq % 3),
                    contents.get(seq), seq == 1 ? "gemini-parts" : null,
                    seq == 1 ? "[{\"text\":\"\",\"thoughtSignature\":\"c2ln\"}]" : null, 50_000 + seq));
        }
        List<StoredEntry> shuffled = new ArrayList<>(written);
        Collections.shuffle(shuffled, new Random(42));

        append(shuffled.toArray(StoredEntry[]::new));

        assertThat(store().entries("c-1")).containsExactlyElementsOf(written);
        for (int seq = 0; seq < contents.size(); seq++) {
            assertThat(store().entries("c-1").get(seq).content().getBytes(StandardCharsets.UTF_8))
                    .isEqualTo(contents.get(seq).getBytes(StandardCharsets.UTF_8));
        }
    }

    @Test
    void storesAOneMegabyteEntryByteForByte() {
        create("c-1", 100);
        StringBuilder big = new StringBuilder();
        String pattern = "line with ünïcödé and 🧪 emoji\r\n\ttrailing spaces   \n";
        while (big.length() < 1_048_576) {
            big.append(pattern).append(big.length()).append('\n');
        }
        String content = big.toString();

        append(new StoredEntry("c-1", 0, 0, "tool", content, null, null, 1));

        String read = store().entries("c-1").getFirst().content();
        assertThat(read.length()).isEqualTo(content.length());
        assertThat(read.getBytes(StandardCharsets.UTF_8)).isEqualTo(content.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void applyingTheSameBatchTwiceStoresItOnce() {
        List<Write> batch = List.of(
                new CreateConversation(conversation("c-1", 100)),
                new AppendEntry(entry("c-1", 0, "hello")),
                new AppendEntry(entry("c-1", 1, "hi")),
                new PutTurn(turn("c-1", 0, "complete")));

        store().apply(batch);
        store().apply(batch);

        assertThat(store().entries("c-1")).containsExactly(entry("c-1", 0, "hello"), entry("c-1", 1, "hi"));
        assertThat(store().turns("c-1")).containsExactly(turn("c-1", 0, "complete"));
        assertThat(store().count(Caller.LOCAL_ID)).isEqualTo(1);
    }

    @Test
    void theFirstWriteOfASeqWinsBecauseEntriesAreNeverRewritten() {
        create("c-1", 100);
        append(entryAt("c-1", 0, 1_000));
        StoredEntry original = store().entries("c-1").getFirst();

        append(new StoredEntry("c-1", 0, 3, "assistant", "rewritten", "fmt", "data", 9_000));

        assertThat(store().entries("c-1")).containsExactly(original);
        assertThat(updatedAt("c-1")).as("an ignored append does not move updated_at").isEqualTo(1_000);
    }

    @Test
    void anAppendMovesUpdatedAtForwardNeverBack() {
        create("c-1", 5_000);
        create("c-2", 4_000);

        append(entryAt("c-1", 0, 3_000));
        assertThat(updatedAt("c-1")).isEqualTo(5_000);

        append(entryAt("c-2", 0, 9_000), entryAt("c-2", 1, 7_000));
        assertThat(updatedAt("c-2")).isEqualTo(9_000);
        assertThat(store().conversations(Caller.LOCAL_ID, 1, 0).getFirst().id()).isEqualTo("c-2");
    }

    @Test
    void aBatchIsAllOrNothing() {
        create("c-0", 100);
        append(entry("c-0", 0, "kept"));
        List<Write> failing = List.of(
                new CreateConversation(conversation("c-1", 100)),
                new AppendEntry(entry("c-1", 0, "lost")),
                new AppendEntry(entry("c-0", 1, "lost too")),
                new SetTitle("c-0", "lost title", 99_999),
                new PutTurn(new TurnRecord("c-1", 0, null, 1, null, null))); // status NOT NULL

        assertThatThrownBy(() -> store().apply(failing))
                .isInstanceOf(StoreRejectedException.class)
                .hasMessageContaining("apply 5 writes");

        assertThat(store().conversation("c-1")).isEmpty();
        assertThat(store().entries("c-1")).isEmpty();
        assertThat(store().entries("c-0")).containsExactly(entry("c-0", 0, "kept"));
        assertThat(store().conversation("c-0").orElseThrow().title()).isEqualTo("Title of c-0");
        // The connection that failed is usable again: no transaction left open.
        for (int i = 0; i < 6; i++) {
            append(entry("c-0", 1 + i, "after " + i));
        }
        assertThat(store().entries("c-0")).hasSize(7);
    }

    @Test
    void aRefusedBatchOfEntriesIsReportedWithoutQuotingTheUsersText() {
        create("c-1", 100);

        assertThatThrownBy(() -> append(entry("c-1", 0, "private words"),
                new StoredEntry("c-1", 1, 0, "user", null, null, null, 5))) // content NOT NULL
                .isInstanceOf(StoreRejectedException.class)
                .hasMessageContaining("content")
                .hasMessageNotContaining("private words")
                .satisfies(e -> assertThat(e.getMessage().length()).isLessThan(1_000));

        assertThat(store().entries("c-1")).isEmpty();
    }

    @Test
    void textThatCannotBeStoredVerbatimIsRefusedTheSameWayOnEveryDatabase() {
        create("c-1", 100);

        assertThatThrownBy(() -> append(entry("c-1", 0, "ok"), entry("c-1", 1, "nul \u0000 inside")))
                .isInstanceOf(StoreRejectedException.class)
                .hasMessageContaining("U+0000")
                .hasMessageNotContaining("inside");
        assertThatThrownBy(() -> append(entry("c-1", 0, "lone surrogate \uD83D.")))
                .isInstanceOf(StoreRejectedException.class)
                .hasMessageContaining("U+D83D");
        assertThatThrownBy(() -> store().apply(List.of(new SetTitle("c-1", "\uDC00", 5))))
                .isInstanceOf(StoreRejectedException.class);

        assertThat(store().entries("c-1")).isEmpty();
    }

    @Test
    void anEmptyBatchDoesNothing() {
        store().apply(List.of());

        assertThat(store().count(Caller.LOCAL_ID)).isZero();
    }

    // ------------------------------------------------------------------------ turns

    @Test
    void putTurnInsertsThenReplaces() {
        create("c-1", 100);
        TurnRecord running = new TurnRecord("c-1", 0, TurnRecord.RUNNING, 1_000, null, null);
        TurnRecord complete = new TurnRecord("c-1", 0, "complete", 1_000, 4_000L, "{\"iterations\":2}");

        store().apply(List.of(new PutTurn(running)));
        assertThat(store().turns("c-1")).containsExactly(running);

        store().apply(List.of(new PutTurn(complete)));
        assertThat(store().turns("c-1")).containsExactly(complete);
    }

    @Test
    void turnsComeBackInTurnOrder() {
        create("c-1", 100);

        store().apply(List.of(new PutTurn(turn("c-1", 2, "running")), new PutTurn(turn("c-1", 0, "complete")),
                new PutTurn(turn("c-1", 10, "failed")), new PutTurn(turn("c-1", 1, "cancelled"))));

        assertThat(store().turns("c-1")).extracting(TurnRecord::turn).containsExactly(0, 1, 2, 10);
    }

    // ------------------------------------------------------------- title and delete

    @Test
    void setTitleChangesTheTitleAndMovesUpdatedAtForward() {
        create("c-1", 100);

        store().apply(List.of(new SetTitle("c-1", "Cold brew ☕", 700)));
        assertThat(store().conversation("c-1").orElseThrow())
                .extracting(ConversationRecord::title, ConversationRecord::updatedAtMillis)
                .containsExactly("Cold brew ☕", 700L);

        store().apply(List.of(new SetTitle("c-1", "Older", 50)));
        assertThat(store().conversation("c-1").orElseThrow())
                .extracting(ConversationRecord::title, ConversationRecord::updatedAtMillis)
                .containsExactly("Older", 700L);
    }

    @Test
    void setTitleOfAnUnknownConversationDoesNothing() {
        store().apply(List.of(new SetTitle("ghost", "Boo", 5)));

        assertThat(store().conversation("ghost")).isEmpty();
    }

    @Test
    void deleteRemovesTheConversationWithItsEntriesTurnsAndLease() {
        create("c-1", 100);
        create("c-2", 100);
        append(entry("c-1", 0, "a"), entry("c-1", 1, "b"), entry("c-2", 0, "other"));
        store().apply(List.of(new PutTurn(turn("c-1", 0, "complete"))));
        assertThat(store().acquireLease("c-1", "A", 1_000, 60_000)).isInstanceOf(Lease.Held.class);

        store().apply(List.of(new DeleteConversation("c-1")));

        assertThat(store().conversation("c-1")).isEmpty();
        assertThat(store().entries("c-1")).isEmpty();
        assertThat(store().turns("c-1")).isEmpty();
        assertThat(store().count(Caller.LOCAL_ID)).isEqualTo(1);
        assertThat(store().entries("c-2")).hasSize(1);
        assertThat(store().acquireLease("c-1", "B", 2_000, 60_000))
                .as("the lease went with the conversation").isEqualTo(new Lease.Held("c-1", 1, 62_000));
    }

    // ------------------------------------------------------------------ attachments

    static StoredEntry userEntryWith(String conversationId, int seq, Attachment... attachments) {
        return new StoredEntry(conversationId, seq, seq, "user", "turn this into a skill", null, null, 10_000 + seq, List.of(attachments));
    }

    static Attachment attachment(String name, byte[] data) {
        return new Attachment(Documents.sha256(data), name, "text/plain", data.length,
                Attachment.wrap(name, "text/plain", StorableText.clean(new String(data, StandardCharsets.UTF_8))));
    }

    @Test
    void attachmentsComeBackWithTheirEntryInOrderAndTheFileOnce() {
        create("c-1", 100);
        byte[] notes = "step one\r\nstep two \u00e9\n".getBytes(StandardCharsets.UTF_8);
        byte[] binary = new byte[256];
        for (int i = 0; i < binary.length; i++) {
            binary[i] = (byte) i;
        }
        Attachment first = attachment("notes.md", notes);
        Attachment again = attachment("copy of notes.md", notes); // the same bytes under another name
        Attachment other = attachment("bytes.txt", binary);
        store().apply(List.of(new AppendEntry(userEntryWith("c-1", 0, first, again, other),
                        List.of(new AttachmentFile(first.sha256(), notes), new AttachmentFile(other.sha256(), binary))),
                new AppendEntry(entry("c-1", 1, "answer"))));
        store().apply(List.of(new AppendEntry(userEntryWith("c-1", 2, first), List.of(new AttachmentFile(first.sha256(), notes)))));

        List<StoredEntry> entries = anotherStore().entries("c-1");
        assertThat(entries.get(0).attachments()).containsExactly(first, again, other);
        assertThat(entries.get(0).attachments().getFirst().promptText())
                .isEqualTo("<document name=\"notes.md\" type=\"text/plain\">\nstep one\r\nstep two \u00e9\n</document>\n\n");
        assertThat(entries.get(1).attachments()).isEmpty();
        assertThat(entries.get(2).attachments()).containsExactly(first);
        assertThat(store().attachmentFile("c-1", first.sha256())).hasValueSatisfying(bytes -> assertThat(bytes).isEqualTo(notes));
        assertThat(store().attachmentFile("c-1", other.sha256())).hasValueSatisfying(bytes -> assertThat(bytes).isEqualTo(binary));
        assertThat(store().attachmentFile("c-2", first.sha256())).isEmpty();
    }

    @Test
    void deletingAConversationDeletesItsAttachments() {
        create("c-1", 100);
        create("c-2", 100);
        byte[] data = "shared".getBytes(StandardCharsets.UTF_8);
        Attachment shared = attachment("a.txt", data);
        for (String id : List.of("c-1", "c-2")) {
            store().apply(List.of(new AppendEntry(userEntryWith(id, 0, shared), List.of(new AttachmentFile(shared.sha256(), data)))));
        }

        store().apply(List.of(new DeleteConversation("c-1")));

        assertThat(store().attachmentFile("c-1", shared.sha256())).isEmpty();
        assertThat(store().attachmentFile("c-2", shared.sha256())).isPresent();
        assertThat(store().entries("c-2").getFirst().attachments()).containsExactly(shared);
        store().apply(List.of(new CreateConversation(conversation("c-1", 200))));
        assertThat(store().entries("c-1")).as("nothing of the deleted conversation comes back").isEmpty();
    }

    @Test
    void anAttachmentNameThatCannotBeStoredRefusesTheWholeBatch() {
        create("c-1", 100);
        Attachment bad = new Attachment("00", "bad\u0000name", "text/plain", 1, "x");

        assertThatThrownBy(() -> store().apply(List.of(new AppendEntry(userEntryWith("c-1", 0, bad)))))
                .isInstanceOf(StoreRejectedException.class).hasMessageContaining("attachment name");
        assertThat(store().entries("c-1")).isEmpty();
    }

    @Test
    void writesAfterADeleteDoNotBringTheConversationBack() {
        store().apply(List.of(new CreateConversation(conversation("c-1", 100)), new AppendEntry(entry("c-1", 0, "a"))));

        store().apply(List.of(new DeleteConversation("c-1"), new AppendEntry(entry("c-1", 1, "late")),
                new PutTurn(turn("c-1", 0, "complete"))));
        store().apply(List.of(new AppendEntry(entry("c-1", 2, "later")), new SetTitle("c-1", "late title", 9_000),
                new PutTurn(turn("c-1", 1, "running"))));

        assertThat(store().conversation("c-1")).isEmpty();
        assertThat(store().entries("c-1")).isEmpty();
        assertThat(store().turns("c-1")).isEmpty();
        assertThat(store().count(Caller.LOCAL_ID)).isZero();
    }

    @Test
    void writesForAnUnknownConversationAreSkippedAndTheRestOfTheBatchIsApplied() {
        store().apply(List.of(
                new AppendEntry(entry("ghost", 0, "boo")),
                new CreateConversation(conversation("c-1", 100)),
                new AppendEntry(entry("c-1", 0, "real")),
                new PutTurn(turn("ghost", 0, "running")),
                new AppendEntry(entry("ghost", 1, "boo")),
                new PutTurn(turn("c-1", 0, "running"))));

        assertThat(store().conversation("ghost")).isEmpty();
        assertThat(store().entries("ghost")).isEmpty();
        assertThat(store().turns("ghost")).isEmpty();
        assertThat(store().entries("c-1")).containsExactly(entry("c-1", 0, "real"));
        assertThat(store().turns("c-1")).containsExactly(turn("c-1", 0, "running"));
    }

    // ----------------------------------------------------------------------- leases

    @Test
    void aFreeLeaseIsTaken() {
        assertThat(store().acquireLease("c-1", "A", 1_000, 500)).isEqualTo(new Lease.Held("c-1", 1, 1_500));
    }

    @Test
    void theHolderTakesItsLeaseAgainWithTheSameEpoch() {
        store().acquireLease("c-1", "A", 1_000, 500);

        assertThat(store().acquireLease("c-1", "A", 1_200, 500)).isEqualTo(new Lease.Held("c-1", 1, 1_700));
        assertThat(store().acquireLease("c-1", "A", 5_000, 500))
                .as("even after expiry, if nobody took it meanwhile")
                .isEqualTo(new Lease.Held("c-1", 1, 5_500));
    }

    @Test
    void aLeaseHeldElsewhereIsRefusedAndTheRequestReachesTheHolder() {
        store().acquireLease("c-1", "A", 1_000, 500);

        assertThat(store().acquireLease("c-1", "B", 1_100, 500)).isEqualTo(new Lease.HeldElsewhere("c-1", "A", 1_500));

        assertThat(store().renewLeases("A", Set.of("c-1"), 1_200, 500)).isEqualTo(new Renewal(Set.of("c-1"), Set.of("c-1"), Set.of()));
        assertThat(store().renewLeases("B", Set.of("c-1"), 1_200, 500)).as("held by A: not B's, and not unleased")
                .isEqualTo(new Renewal(Set.of(), Set.of(), Set.of()));
        assertThat(store().acquireLease("c-1", "A", 1_300, 500))
                .as("the holder renewing keeps the request pending").isEqualTo(new Lease.Held("c-1", 1, 1_800));
        assertThat(store().renewLeases("A", Set.of("c-1"), 1_400, 500).requested()).containsExactly("c-1");
    }

    @Test
    void aReleasedLeaseGoesToTheNextOwnerWithTheNextEpoch() {
        store().acquireLease("c-1", "A", 1_000, 60_000);
        store().acquireLease("c-1", "B", 1_100, 60_000);

        store().releaseLease("c-1", "A");

        assertThat(store().acquireLease("c-1", "B", 1_200, 60_000)).isEqualTo(new Lease.Held("c-1", 2, 61_200));
        assertThat(store().renewLeases("B", Set.of("c-1"), 1_300, 60_000))
                .as("B's own request is no longer pending").isEqualTo(new Renewal(Set.of("c-1"), Set.of(), Set.of()));
        assertThat(store().renewLeases("A", Set.of("c-1"), 1_300, 60_000).held()).isEmpty();
        store().releaseLease("c-1", "B");
        assertThat(store().acquireLease("c-1", "B", 1_400, 60_000))
                .as("a new holding after a release, even by the same owner").isEqualTo(new Lease.Held("c-1", 3, 61_400));
    }

    @Test
    void releaseByAnotherOwnerChangesNothing() {
        store().acquireLease("c-1", "A", 1_000, 500);

        store().releaseLease("c-1", "B");
        store().releaseLease("c-unknown", "A");

        assertThat(store().acquireLease("c-1", "B", 1_100, 500)).isEqualTo(new Lease.HeldElsewhere("c-1", "A", 1_500));
    }

    @Test
    void anExpiredLeaseCanBeTakenByAnother() {
        store().acquireLease("c-1", "A", 1_000, 500);

        assertThat(store().acquireLease("c-1", "B", 1_499, 500)).isEqualTo(new Lease.HeldElsewhere("c-1", "A", 1_500));
        assertThat(store().acquireLease("c-1", "B", 1_500, 500)).isEqualTo(new Lease.Held("c-1", 2, 2_000));
        assertThat(store().renewLeases("B", Set.of("c-1"), 1_600, 500).requested())
                .as("B's earlier request is gone now that B holds it").isEmpty();
        assertThat(store().acquireLease("c-1", "A", 1_700, 500))
                .as("the renewal at 1 600 moved the expiry").isEqualTo(new Lease.HeldElsewhere("c-1", "B", 2_100));
    }

    @Test
    void leasesRequestedFromNamesWhatOthersAskedOfTheOwnerAndNothingOnceHandedOver() {
        store().acquireLease("c-1", "A", 1_000, 500);
        store().acquireLease("c-2", "A", 1_000, 500);
        store().acquireLease("c-3", "B", 1_000, 500);
        assertThat(store().leasesRequestedFrom("A")).isEmpty();

        store().acquireLease("c-1", "B", 1_100, 500);
        store().acquireLease("c-3", "A", 1_100, 500);
        store().acquireLease("c-2", "A", 1_100, 500); // its holder taking it again is no request
        assertThat(store().leasesRequestedFrom("A")).as("as a renewal reports them")
                .containsExactly("c-1")
                .containsExactlyElementsOf(store().renewLeases("A", Set.of("c-1", "c-2"), 1_200, 500).requested());
        assertThat(store().leasesRequestedFrom("B")).containsExactly("c-3");

        store().releaseLease("c-1", "A");
        assertThat(store().leasesRequestedFrom("A")).as("handed over").isEmpty();
        store().acquireLease("c-1", "B", 1_300, 500);
        assertThat(store().leasesRequestedFrom("B")).as("B's own request is no request for B").containsExactly("c-3");
    }

    @Test
    void leasesHeldByNamesTheOwnersLeasesExpiredOrNotAndNoneReleasedOrTakenOver() {
        store().acquireLease("c-1", "A", 1_000, 500);
        store().acquireLease("c-2", "A", 1_000, 500);
        store().acquireLease("c-3", "A", 1_000, 500);
        store().acquireLease("c-4", "B", 1_000, 500);
        store().releaseLease("c-2", "A");
        store().acquireLease("c-3", "B", 1_500, 500);

        assertThat(store().leasesHeldBy("A")).as("c-1 expired at 1 500 but nobody took it").containsExactly("c-1");
        assertThat(store().leasesHeldBy("B")).containsExactlyInAnyOrder("c-3", "c-4");
        assertThat(store().leasesHeldBy("C")).isEmpty();
    }

    @Test
    void renewalExtendsOnlyTheLeasesTheOwnerStillHolds() {
        store().acquireLease("c-1", "A", 1_000, 500);
        store().acquireLease("c-2", "A", 1_000, 500);
        store().acquireLease("c-3", "B", 1_000, 500);

        Renewal renewal = store().renewLeases("A", Set.of("c-1", "c-2", "c-3", "c-4"), 1_400, 1_000);

        assertThat(renewal).as("c-4 has no lease at all").isEqualTo(new Renewal(Set.of("c-1", "c-2"), Set.of(), Set.of("c-4")));
        assertThat(store().acquireLease("c-1", "B", 2_000, 500)).isEqualTo(new Lease.HeldElsewhere("c-1", "A", 2_400));
        assertThat(store().acquireLease("c-3", "A", 1_600, 500))
                .as("B's lease was not extended by A").isEqualTo(new Lease.Held("c-3", 2, 2_100));
        assertThat(store().renewLeases("A", Set.of(), 1_700, 500)).isEqualTo(new Renewal(Set.of(), Set.of(), Set.of()));
    }

    @Test
    void renewalOfManyLeasesAnswersForAllOfThem() {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 1_100; i++) {
            ids.add("c-" + i);
        }
        // Takes them in one batch of transactions from two owners: every third one is B's.
        for (int i = 0; i < 1_100; i++) {
            store().acquireLease("c-" + i, i % 3 == 0 ? "B" : "A", 1_000, 500);
        }
        store().acquireLease("c-1", "B", 1_100, 500);

        Renewal renewal = store().renewLeases("A", ids, 1_200, 500);

        assertThat(renewal.held()).hasSize(1_100 - 367).doesNotContain("c-0", "c-3").contains("c-1", "c-1099");
        assertThat(renewal.requested()).containsExactly("c-1");
        assertThat(store().renewLeases("A", Set.of("c-1", "c-1100", "c-1101"), 1_300, 500).unleased())
                .containsExactlyInAnyOrder("c-1100", "c-1101");
    }

    @Test
    void aNegativeTtlIsRefused() {
        assertThatThrownBy(() -> store().acquireLease("c-1", "A", 1_000, -1)).isInstanceOf(IllegalArgumentException.class);
    }

    // ---------------------------------------------------------------------- fencing

    @Test
    void writesUnderTheHeldEpochLandAndWritesUnderAStaleEpochAreRefusedWhileTheRestOfTheBatchLands() {
        create("c-1", 100);
        create("c-2", 100);
        long epochOfA = ((Lease.Held) store().acquireLease("c-1", "A", 1_000, 500)).epoch();
        assertThat(store().apply(List.of(new AppendEntry(entry("c-1", 0, "A's question"), epochOfA)))).isEmpty();

        Lease.Held takenOver = (Lease.Held) anotherStore().acquireLease("c-1", "B", 1_500, 500);
        assertThat(takenOver.epoch()).isGreaterThan(epochOfA);

        Set<ConversationStore.Fenced> refused = store().apply(List.of(
                new AppendEntry(entry("c-1", 1, "A, after the take-over"), epochOfA),
                new PutTurn(turn("c-1", 0, "complete"), epochOfA),
                new SetTitle("c-1", "renamed by A", 2_000, epochOfA),
                new AppendEntry(entry("c-2", 0, "another conversation, unfenced"))));

        assertThat(refused).containsExactly(new ConversationStore.Fenced("c-1", epochOfA));
        assertThat(store().entries("c-1")).containsExactly(entry("c-1", 0, "A's question"));
        assertThat(store().turns("c-1")).isEmpty();
        assertThat(store().conversation("c-1").orElseThrow().title()).isEqualTo("Title of c-1");
        assertThat(store().entries("c-2")).as("the rest of the batch").containsExactly(entry("c-2", 0, "another conversation, unfenced"));

        assertThat(anotherStore().apply(List.of(new AppendEntry(entry("c-1", 1, "B goes on"), takenOver.epoch())))).isEmpty();
        assertThat(store().entries("c-1")).extracting(StoredEntry::content).containsExactly("A's question", "B goes on");
    }

    @Test
    void aReleasedLeaseFencesItsEpochAndAStaleDeleteDeletesNothing() {
        create("c-1", 100);
        long epoch = ((Lease.Held) store().acquireLease("c-1", "A", 1_000, 60_000)).epoch();
        store().releaseLease("c-1", "A");

        assertThat(store().apply(List.of(new AppendEntry(entry("c-1", 0, "after the release"), epoch))))
                .containsExactly(new ConversationStore.Fenced("c-1", epoch));
        assertThat(store().apply(List.of(new DeleteConversation("c-1", epoch))))
                .containsExactly(new ConversationStore.Fenced("c-1", epoch));
        assertThat(store().conversation("c-1")).isPresent();
        assertThat(store().entries("c-1")).isEmpty();
    }

    @Test
    void theCreatorWritesUnderTheEpochItsCreationWrote() {
        store().apply(List.of(new CreateConversation(conversation("c-1", 100), "A", 60_000)));

        assertThat(store().apply(List.of(new AppendEntry(entry("c-1", 0, "first"), CreateConversation.LEASE_EPOCH)))).isEmpty();
        assertThat(store().entries("c-1")).hasSize(1);

        // In the same batch too (the writer batches whatever queued up while the database was slow).
        assertThat(store().apply(List.of(new CreateConversation(conversation("c-2", 100), "A", 60_000),
                new AppendEntry(entry("c-2", 0, "first"), CreateConversation.LEASE_EPOCH),
                new PutTurn(turn("c-2", 0, "running"), CreateConversation.LEASE_EPOCH)))).isEmpty();
        assertThat(store().entries("c-2")).hasSize(1);
        assertThat(store().turns("c-2")).hasSize(1);
    }

    @Test
    void aTakeOverRacingAnInstanceThatKeepsWritingLeavesNoStaleWriteAfterIt() throws Exception {
        ConversationStore a = store();
        ConversationStore b = anotherStore();
        for (int round = 0; round < 20; round++) {
            String id = "race-" + round;
            a.apply(List.of(new CreateConversation(conversation(id, 100), "A", 1_000)));
            long epochOfA = CreateConversation.LEASE_EPOCH;
            long pause = round % 5; // B lands at different moments of A's writing
            CyclicBarrier start = new CyclicBarrier(2);
            try (ExecutorService threads = Executors.newFixedThreadPool(2)) {
                Future<Integer> writer = threads.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    for (int seq = 0; ; seq++) {
                        if (!a.apply(List.of(new AppendEntry(entry(id, seq, "A " + seq), epochOfA))).isEmpty()) {
                            return seq; // refused from here on
                        }
                    }
                });
                Future<Integer> takeOver = threads.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    Thread.sleep(pause);
                    Lease.Held held = (Lease.Held) b.acquireLease(id, "B", 5_000, 60_000);
                    int next = b.entries(id).size();
                    assertThat(b.apply(List.of(new AppendEntry(entry(id, next, "B " + next), held.epoch())))).isEmpty();
                    return next;
                });
                int refusedFrom = writer.get(60, TimeUnit.SECONDS);
                int bWroteAt = takeOver.get(60, TimeUnit.SECONDS);

                assertThat(refusedFrom).as("round %d: A's writes stop being stored where B took over", round).isEqualTo(bWroteAt);
                List<String> contents = store().entries(id).stream().map(StoredEntry::content).toList();
                List<String> expected = new ArrayList<>(IntStream.range(0, bWroteAt).mapToObj(i -> "A " + i).toList());
                expected.add("B " + bWroteAt);
                assertThat(contents).as("round %d", round).isEqualTo(expected);
            }
        }
    }

    // ------------------------------------------------------------------ concurrency

    @Test
    void twoInstancesRacingForALeaseGetExactlyOneHolderEachTime() throws Exception {
        ConversationStore[] instances = {store(), anotherStore()};
        String[] owners = {"instance-A", "instance-B"};
        CyclicBarrier start = new CyclicBarrier(2);
        try (ExecutorService threads = Executors.newFixedThreadPool(2)) {
            for (int round = 0; round < 200; round++) {
                String id = "race-" + round;
                List<Future<Lease>> answers = new ArrayList<>();
                for (int i = 0; i < 2; i++) {
                    int instance = i;
                    answers.add(threads.submit(() -> {
                        start.await(10, TimeUnit.SECONDS);
                        return instances[instance].acquireLease(id, owners[instance], 1_000, 60_000);
                    }));
                }
                List<Lease> leases = new ArrayList<>();
                for (Future<Lease> answer : answers) {
                    leases.add(answer.get(30, TimeUnit.SECONDS));
                }
                List<Lease.Held> held = leases.stream()
                        .filter(Lease.Held.class::isInstance).map(Lease.Held.class::cast).toList();
                List<Lease.HeldElsewhere> refused = leases.stream()
                        .filter(Lease.HeldElsewhere.class::isInstance).map(Lease.HeldElsewhere.class::cast).toList();
                assertThat(held).as("round %d: %s", round, leases).hasSize(1);
                assertThat(held.getFirst()).isEqualTo(new Lease.Held(id, 1, 61_000));
                String winner = owners[leases.indexOf(held.getFirst())];
                assertThat(refused).as("round %d", round).containsExactly(new Lease.HeldElsewhere(id, winner, 61_000));
            }
        }
    }

    @Test
    void concurrentAppendsOfDisjointSeqsAllLandInOrder() throws Exception {
        create("c-1", 100);
        ConversationStore[] instances = {store(), anotherStore()};
        int threadCount = 8;
        int perThread = 40;
        try (ExecutorService threads = Executors.newFixedThreadPool(threadCount)) {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threadCount; t++) {
                int thread = t;
                done.add(threads.submit(() -> {
                    for (int k = 0; k < perThread; k++) {
                        int seq = k * threadCount + thread;
                        instances[thread % 2].apply(List.of(new AppendEntry(entry("c-1", seq, "entry " + seq))));
                    }
                    return null;
                }));
            }
            for (Future<?> future : done) {
                future.get(60, TimeUnit.SECONDS);
            }
        }

        List<StoredEntry> entries = store().entries("c-1");
        assertThat(entries).hasSize(threadCount * perThread).isSortedAccordingTo(Comparator.comparingInt(StoredEntry::seq));
        for (int seq = 0; seq < entries.size(); seq++) {
            assertThat(entries.get(seq)).isEqualTo(entry("c-1", seq, "entry " + seq));
        }
    }
}
