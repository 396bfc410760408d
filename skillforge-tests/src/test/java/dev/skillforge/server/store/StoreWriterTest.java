package dev.skillforge.server.store;

import dev.skillforge.testkit.OutageSimulatingStore;
import dev.skillforge.server.people.Caller;
import dev.skillforge.testkit.LatencyInjectingStore;
import dev.skillforge.server.store.Write.AppendEntry;
import dev.skillforge.server.store.Write.CreateConversation;
import dev.skillforge.server.store.Write.PutTurn;
import dev.skillforge.server.store.Write.SetTitle;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import static dev.skillforge.server.store.ConversationStoreContract.conversation;
import static dev.skillforge.server.store.ConversationStoreContract.entry;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The write-behind writer against a real SQLite store, slowed down or taken down by decorators. */
class StoreWriterTest {

    private static final Duration QUICK_BACKOFF = Duration.ofMillis(10);
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dataDir;

    private JdbcConversationStore database;
    private final List<StoreWriter> writers = new ArrayList<>();

    @BeforeEach
    void openStore() {
        database = JdbcConversationStore.open(null, null, null, dataDir);
    }

    @AfterEach
    void closeAll() {
        writers.forEach(StoreWriter::close);
        database.close();
    }

    private StoreWriter writer(ConversationStore store, int maxBatch) {
        return writer(store, new StoreWriter.Options(maxBatch, QUICK_BACKOFF, Duration.ofMillis(100), Duration.ofSeconds(10)));
    }

    private StoreWriter writer(ConversationStore store, StoreWriter.Options options) {
        StoreWriter writer = new StoreWriter(store, options);
        writers.add(writer);
        return writer;
    }

    /** A conversation, then {@code count} entries, with a title change after every tenth. */
    private static List<Write> conversationWrites(String id, int count) {
        List<Write> writes = new ArrayList<>();
        writes.add(new CreateConversation(conversation(id, 100)));
        for (int seq = 0; seq < count; seq++) {
            writes.add(new AppendEntry(entry(id, seq, "entry " + seq)));
            if (seq % 10 == 9) {
                writes.add(new SetTitle(id, "title after " + seq, 100));
            }
        }
        return writes;
    }

    private static List<StoredEntry> entries(String id, int count) {
        List<StoredEntry> entries = new ArrayList<>();
        for (int seq = 0; seq < count; seq++) {
            entries.add(entry(id, seq, "entry " + seq));
        }
        return entries;
    }

    @Test
    void appliesWritesInSubmissionOrderAcrossBatches() {
        RecordingStore recording = new RecordingStore(database);
        StoreWriter writer = writer(recording, 7);
        List<Write> writes = conversationWrites("c-1", 100);

        writes.forEach(writer::submit);

        assertThat(writer.flush(WAIT)).isTrue();
        assertThat(recording.applied()).isEqualTo(writes);
        assertThat(recording.batches()).hasSizeGreaterThanOrEqualTo(writes.size() / 7)
                .allSatisfy(batch -> assertThat(batch).hasSizeLessThanOrEqualTo(7));
        assertThat(database.entries("c-1")).isEqualTo(entries("c-1", 100));
        assertThat(database.conversation("c-1").orElseThrow().title()).isEqualTo("title after 99");
    }

    @Test
    void aShallowQueueWaitsItsLingerForMoreWritesAndAFlushCutsTheWaitShort() {
        RecordingStore recording = new RecordingStore(database);
        StoreWriter writer = writer(recording, new StoreWriter.Options(500, QUICK_BACKOFF, Duration.ofMillis(100),
                Duration.ofSeconds(10), Duration.ofMinutes(1)));
        List<Write> writes = conversationWrites("c-1", 30);

        long start = System.nanoTime();
        writes.forEach(writer::submit);
        assertThat(recording.batches()).as("a minute's linger: nothing applied while the writes come in").isEmpty();
        assertThat(writer.flush(WAIT)).isTrue();

        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the flush ended the linger").isLessThan(Duration.ofSeconds(30));
        assertThat(recording.batches()).as("one commit for all of them").hasSize(1);
        assertThat(recording.applied()).isEqualTo(writes);
    }

    @Test
    void flushReturnsOnceTheWritesAreVisibleInTheStore() {
        StoreWriter writer = writer(database, 500);

        conversationWrites("c-1", 50).forEach(writer::submit);

        assertThat(writer.flush(WAIT)).isTrue();
        assertThat(database.entries("c-1")).isEqualTo(entries("c-1", 50));
        assertThat(writer.pending()).isZero();
    }

    @Test
    void whileTheStoreIsDownSubmitDoesNotBlockAndEverythingLandsInOrderOnceItIsBack() throws InterruptedException {
        RecordingStore recording = new RecordingStore(database);
        OutageSimulatingStore outage = new OutageSimulatingStore(recording);
        StoreWriter writer = writer(outage, 50);
        outage.setDown(true);
        List<Write> writes = conversationWrites("c-1", 200);

        long slowestSubmitNanos = 0;
        for (Write write : writes) {
            long start = System.nanoTime();
            writer.submit(write);
            slowestSubmitNanos = Math.max(slowestSubmitNanos, System.nanoTime() - start);
        }

        assertThat(Duration.ofNanos(slowestSubmitNanos)).isLessThan(Duration.ofMillis(50));
        assertThat(writer.flush(Duration.ofMillis(300))).as("flush while down").isFalse();
        waitUntil(() -> outage.refusedCalls() >= 3);
        assertThat(writer.health().failing()).isTrue();
        assertThat(writer.health().lastError()).contains("Simulated outage");
        assertThat(writer.health().pending()).isEqualTo(writes.size());
        assertThat(database.count(Caller.LOCAL_ID)).isZero();

        outage.setDown(false);

        assertThat(writer.flush(WAIT)).isTrue();
        assertThat(recording.applied()).isEqualTo(writes);
        assertThat(database.entries("c-1")).isEqualTo(entries("c-1", 200));
        assertThat(writer.health()).isEqualTo(new StoreWriter.Health(0, false, writer.health().lastError(), 0));
    }

    @Test
    void anOutageInTheMiddleLosesNothingAndDuplicatesNothing() throws InterruptedException {
        OutageSimulatingStore outage = new OutageSimulatingStore(database);
        StoreWriter writer = writer(outage, 5);
        List<Write> writes = conversationWrites("c-1", 60);

        for (int i = 0; i < writes.size(); i++) {
            if (i == 20) {
                outage.setDown(true);
            }
            if (i == 40) {
                waitUntil(() -> outage.refusedCalls() >= 2);
                outage.setDown(false);
            }
            writer.submit(writes.get(i));
        }

        assertThat(writer.flush(WAIT)).isTrue();
        assertThat(database.entries("c-1")).isEqualTo(entries("c-1", 60));
    }

    @Test
    void submitReturnsAtOnceWhenTheStoreIsSlow() {
        StoreWriter writer = writer(new LatencyInjectingStore(database, Duration.ofMillis(100)), 500);
        List<Write> writes = conversationWrites("c-1", 20);

        for (Write write : writes) {
            long start = System.nanoTime();
            writer.submit(write);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(50));
        }

        assertThat(writer.flush(WAIT)).isTrue();
        assertThat(database.entries("c-1")).isEqualTo(entries("c-1", 20));
    }

    @Test
    void closeFlushesWhatIsQueued() {
        StoreWriter writer = writer(new LatencyInjectingStore(database, Duration.ofMillis(20)), 25);
        conversationWrites("c-1", 300).forEach(writer::submit);

        writer.close();

        assertThat(writer.pending()).isZero();
        assertThat(database.entries("c-1")).isEqualTo(entries("c-1", 300));
        assertThatThrownBy(() -> writer.submit(new SetTitle("c-1", "too late", 5)))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void closeGivesUpAfterItsTimeoutWhenTheStoreStaysDown() {
        OutageSimulatingStore outage = new OutageSimulatingStore(database);
        outage.setDown(true);
        StoreWriter writer = writer(outage,
                new StoreWriter.Options(500, QUICK_BACKOFF, Duration.ofMillis(50), Duration.ofMillis(300)));
        writer.submit(new CreateConversation(conversation("c-1", 100)));

        long start = System.nanoTime();
        writer.close();

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        assertThat(writer.pending()).isEqualTo(1);
        assertThat(writer.health().failing()).isTrue();
    }

    @Test
    void aWriteTheStoreRefusesIsDroppedAndTheOthersLand() {
        StoreWriter writer = writer(database, 500);

        writer.submit(new CreateConversation(conversation("c-1", 100)));
        writer.submit(new AppendEntry(entry("c-1", 0, "before")));
        writer.submit(new PutTurn(new TurnRecord("c-1", 0, null, 1, null, null))); // status NOT NULL
        writer.submitAll(List.of(new AppendEntry(entry("c-1", 1, "with")), new AppendEntry(entry("c-1", 2, "bad \u0000"))));
        writer.submit(new AppendEntry(entry("c-1", 3, "after")));

        assertThat(writer.flush(WAIT)).isTrue();
        assertThat(database.entries("c-1")).extracting(StoredEntry::seq).containsExactly(0, 1, 3);
        assertThat(database.turns("c-1")).isEmpty();
        assertThat(writer.health().dropped()).isEqualTo(2);
        assertThat(writer.health().failing()).isFalse();
    }

    @Test
    void writesSubmittedTogetherAreAppliedInOneBatch() {
        RecordingStore recording = new RecordingStore(new LatencyInjectingStore(database, Duration.ofMillis(30)));
        StoreWriter writer = writer(recording, 2);
        List<Write> unit = conversationWrites("c-1", 5);

        writer.submit(new CreateConversation(conversation("c-0", 100)));
        writer.submitAll(unit);
        writer.submit(new SetTitle("c-1", "after", 200));

        assertThat(writer.flush(WAIT)).isTrue();
        assertThat(recording.batches()).anySatisfy(batch -> assertThat(batch).isEqualTo(unit));
        assertThat(recording.applied()).hasSize(unit.size() + 2);
    }

    private static void waitUntil(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waited too long").isLessThan(deadline);
            Thread.sleep(5);
        }
    }
}
