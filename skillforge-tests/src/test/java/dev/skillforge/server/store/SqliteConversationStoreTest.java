package dev.skillforge.server.store;

import dev.skillforge.server.store.Write.AppendEntry;
import dev.skillforge.server.store.Write.CreateConversation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The conformance suite on the embedded SQLite file, plus what only the embedded database does. */
class SqliteConversationStoreTest extends ConversationStoreContract {

    /** The connections of the embedded database's pool (Database). */
    private static final int SQLITE_POOL_SIZE = 4;

    @TempDir
    Path tempDir;

    private Path dataDir() {
        return tempDir.resolve("data");
    }

    @Override
    protected ConversationStore openStore() {
        return JdbcConversationStore.open(null, null, null, dataDir());
    }

    @Override
    protected Address address() {
        try {
            Files.createDirectories(dataDir());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return new Address("jdbc:sqlite:" + dataDir().resolve(Database.SQLITE_FILE_NAME), null, Dialect.SQLITE.migrations());
    }

    @Test
    void createsTheDataFolderAndTheDatabaseFileOnFirstStart() {
        Path dataDir = tempDir.resolve("not/there/yet");

        try (JdbcConversationStore store = JdbcConversationStore.open(null, "ignored", "ignored", dataDir)) {
            assertThat(store.database().dialect()).isEqualTo(Dialect.SQLITE);
            assertThat(store.database().description()).contains(dataDir.resolve("skillforge.db").toString());
        }
        assertThat(dataDir.resolve(Database.SQLITE_FILE_NAME)).isRegularFile();
    }

    @Test
    void connectionsUseWalNormalSyncForeignKeysAndABusyTimeout() throws SQLException {
        JdbcConversationStore store = (JdbcConversationStore) store();

        try (Connection connection = store.database().connection(); Statement statement = connection.createStatement()) {
            assertThat(pragma(statement, "journal_mode")).isEqualTo("wal");
            assertThat(pragma(statement, "synchronous")).isEqualTo("1"); // NORMAL
            assertThat(pragma(statement, "foreign_keys")).isEqualTo("1");
            assertThat(pragma(statement, "busy_timeout")).isEqualTo(Long.toString(Database.SQLITE_BUSY_TIMEOUT.toMillis()));
        }
    }

    @Test
    void aFullDatabaseIsAStorageFailureLeasesStillRenewInPlaceAndTheSameWritesGoInOnceThereIsRoom() throws SQLException {
        JdbcConversationStore store = (JdbcConversationStore) store();
        store.apply(List.of(new CreateConversation(conversation("c-1", 100))));
        store.acquireLease("c-1", "A", 1_000, 500);
        List<Write> needsRoom = List.of(new AppendEntry(entry("c-1", 0, "x".repeat(200_000))));

        allowGrowth(store, false);
        assertThatThrownBy(() -> store.apply(needsRoom)).isInstanceOf(StorageFailureException.class)
                .hasMessageContaining("SQLITE_FULL");
        assertThat(store.renewLeases("A", Set.of("c-1"), 1_200, 500).held()).as("a renewal changes its row in place")
                .containsExactly("c-1");
        assertThat(store.entries("c-1")).as("nothing of the failed batch").isEmpty();

        allowGrowth(store, true);
        store.apply(needsRoom);
        assertThat(store.entries("c-1")).extracting(StoredEntry::content).containsExactly("x".repeat(200_000));
    }

    /**
     * Lets the database file grow, or keeps it at its size as a full disk would (SQLite's {@code max_page_count}, set on
     * every connection of the pool: SQLITE_FULL, "database or disk is full", for whatever needs a new page).
     */
    private static void allowGrowth(JdbcConversationStore store, boolean allowed) throws SQLException {
        List<Connection> pool = new ArrayList<>();
        try {
            for (int i = 0; i < SQLITE_POOL_SIZE; i++) {
                pool.add(store.database().connection());
            }
            for (Connection connection : pool) {
                try (Statement statement = connection.createStatement()) {
                    String pages = allowed ? "4294967294" : pragma(statement, "page_count");
                    statement.execute("PRAGMA max_page_count = " + pages);
                }
            }
        } finally {
            for (Connection connection : pool) {
                connection.close();
            }
        }
    }

    @Test
    void reopeningKeepsTheDataAndAppliesNoMigrationTwice() throws SQLException {
        store().apply(List.of(new CreateConversation(conversation("c-1", 100)), new AppendEntry(entry("c-1", 0, "kept"))));
        int applied;
        String newest;
        try (Connection connection = ((JdbcConversationStore) store()).database().connection();
             Statement statement = connection.createStatement();
             ResultSet history = statement.executeQuery("SELECT COUNT(*), MAX(version) FROM flyway_schema_history WHERE success = 1")) {
            history.next();
            applied = history.getInt(1);
            newest = history.getString(2);
        }
        assertThat(applied).as("every migration, V1 on").isGreaterThanOrEqualTo(8);
        store().close();

        try (JdbcConversationStore reopened = JdbcConversationStore.open(null, null, null, dataDir());
             Connection connection = reopened.database().connection();
             Statement statement = connection.createStatement();
             ResultSet history = statement.executeQuery(
                     "SELECT COUNT(*), MAX(version) FROM flyway_schema_history WHERE success = 1")) {
            assertThat(reopened.entries("c-1")).containsExactly(entry("c-1", 0, "kept"));
            history.next();
            assertThat(history.getInt(1)).as("no migration applied twice").isEqualTo(applied);
            assertThat(history.getString(2)).isEqualTo(newest);
        }
    }

    @Test
    void anExplicitSqliteUrlNamesAnotherFile() {
        Path file = tempDir.resolve("elsewhere/other.db");

        try (JdbcConversationStore store = JdbcConversationStore.open("jdbc:sqlite:" + file, null, null, null)) {
            store.apply(List.of(new CreateConversation(conversation("c-1", 100))));
        }
        assertThat(file).isRegularFile();
        assertThat(Files.exists(tempDir.resolve("data"))).isFalse();
    }

    @Test
    void anUnsupportedUrlIsRefusedWithoutEchoingIt() {
        assertThatThrownBy(() -> Database.open("jdbc:mysql://db/x?password=hunter2", null, null, tempDir))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("jdbc:mysql")
                .hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> Database.open("jdbc:sqlite::memory:", null, null, tempDir))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aDataFolderThatCannotBeCreatedFailsWithAStoreExceptionNamingIt() throws Exception {
        Path blocker = Files.writeString(tempDir.resolve("a-file"), "not a folder");

        assertThatThrownBy(() -> Database.open(null, null, null, blocker.resolve("data")))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining(blocker.toString());
    }

    private static String pragma(Statement statement, String name) throws SQLException {
        try (ResultSet result = statement.executeQuery("PRAGMA " + name)) {
            result.next();
            return result.getString(1);
        }
    }
}
