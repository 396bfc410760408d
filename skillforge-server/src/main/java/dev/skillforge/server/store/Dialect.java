package dev.skillforge.server.store;

import dev.skillforge.server.search.SearchQuery;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The databases the store runs on, and the few things that differ between them. Everything else
 * (the schema, upserts with {@code ON CONFLICT}, {@code LIMIT/OFFSET}) is the same SQL on both.
 */
enum Dialect {

    /** The embedded default: one file, one writer at a time. */
    SQLITE("SQLite") {
        @Override
        String migrations() {
            return "classpath:db/sqlite";
        }

        @Override
        String titleMatches(String alias) {
            return alias + ".rowid IN (SELECT rowid FROM titles_search WHERE titles_search MATCH ?)";
        }

        @Override
        String entryMatches(String alias) {
            return alias + ".rowid IN (SELECT rowid FROM entries_search WHERE entries_search MATCH ?)";
        }

        @Override
        String attachmentMatches(String alias) {
            return alias + ".rowid IN (SELECT rowid FROM attachments_search WHERE attachments_search MATCH ?)";
        }

        @Override
        String matchOf(SearchQuery.Term term) {
            // A phrase in quotes, its last word a prefix: "cold brew"* (the words hold letters and digits only).
            return "\"" + String.join(" ", term.words()) + "\"*";
        }

        @Override
        void begin(Connection connection) throws SQLException {
            // BEGIN IMMEDIATE takes the write lock up front. A deferred transaction that reads and
            // then writes fails at once with SQLITE_BUSY_SNAPSHOT when another connection wrote in
            // between, and the busy timeout does not help it; an immediate one waits its turn.
            // Issued as plain statements on an auto-commit connection, because the driver's own
            // transaction handling starts the next transaction right after each commit.
            execute(connection, "BEGIN IMMEDIATE");
        }

        @Override
        void commit(Connection connection) throws SQLException {
            execute(connection, "COMMIT");
        }

        @Override
        void rollback(Connection connection) throws SQLException {
            if (!connection.isClosed()) {
                execute(connection, "ROLLBACK");
            }
        }

        @Override
        String lockForUpdate() {
            return ""; // BEGIN IMMEDIATE already holds the only write lock
        }

        @Override
        String lockAgainstDelete() {
            return "";
        }

        @Override
        String lockShared() {
            return "";
        }

        @Override
        String inCodePointOrder(String column) {
            return column; // SQLite's default collation, BINARY, compares UTF-8 bytes
        }

        @Override
        boolean isRejection(SQLException e) {
            // Primary result codes (the driver reports them as the error code): a constraint
            // failed, a value is too big, a datatype mismatch.
            int code = e.getErrorCode() & 0xff;
            return code == 19 || code == 18 || code == 20;
        }

        @Override
        boolean isStorageFailure(SQLException e) {
            // SQLITE_FULL (the disk, or the file's size limit) and SQLITE_IOERR with its extended codes.
            int code = e.getErrorCode() & 0xff;
            return code == 13 || code == 10;
        }
    },

    /** For real deployments, and for several server instances sharing conversations. */
    POSTGRESQL("PostgreSQL") {
        @Override
        String migrations() {
            return "classpath:db/postgresql";
        }

        // Each condition repeats its index's expression exactly (V11__search.sql), so that the planner can use it.
        @Override
        String titleMatches(String alias) {
            return "search_words(coalesce(" + alias + ".title, '')) @@ to_tsquery('simple', ?)";
        }

        @Override
        String entryMatches(String alias) {
            return alias + ".kind IN ('user', 'assistant', 'tool') AND search_words(left(" + alias + ".content, 100000))"
                    + " @@ to_tsquery('simple', ?)";
        }

        @Override
        String attachmentMatches(String alias) {
            return "search_words(attachment_search_text(" + alias + ".name, " + alias + ".prompt_text)) @@ to_tsquery('simple', ?)";
        }

        @Override
        String matchOf(SearchQuery.Term term) {
            // The words in a row, the last a prefix: cold <-> brew:* (the words hold letters and digits only).
            return String.join(" <-> ", term.words()) + ":*";
        }

        @Override
        void begin(Connection connection) throws SQLException {
            connection.setAutoCommit(false);
        }

        @Override
        void beginInSequence(Connection connection, String sequence) throws SQLException {
            connection.setAutoCommit(false);
            // Waits for the lock every instance takes for this sequence, held until commit or rollback. Under READ
            // COMMITTED each later statement sees what the write before it committed: a snapshot taken before the
            // lock (REPEATABLE READ) would not, and would make the write collide and start again, maybe for ever.
            try (PreparedStatement lock = connection.prepareStatement("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))")) {
                lock.setString(1, "skillforge sequence " + sequence);
                lock.executeQuery().close();
            }
        }

        @Override
        void commit(Connection connection) throws SQLException {
            connection.commit();
            connection.setAutoCommit(true);
        }

        @Override
        void rollback(Connection connection) throws SQLException {
            if (!connection.isClosed()) {
                connection.rollback();
                connection.setAutoCommit(true);
            }
        }

        @Override
        String lockForUpdate() {
            return " FOR UPDATE";
        }

        @Override
        String lockShared() {
            // Other readers and writers of the row go on; an UPDATE of it (a take-over) waits.
            return " FOR SHARE";
        }

        @Override
        String lockAgainstDelete() {
            // Keeps the conversation from being deleted by another instance between the check that
            // it exists and the insert of its entries, without blocking other appends.
            return " FOR KEY SHARE";
        }

        @Override
        String inCodePointOrder(String column) {
            // The database's default collation follows its locale; "C" compares bytes, as SQLite does.
            return column + " COLLATE \"C\"";
        }

        @Override
        boolean isRejection(SQLException e) {
            // SQLSTATE class 22 (data exception) and 23 (integrity constraint violation).
            String state = e.getSQLState();
            return state != null && (state.startsWith("22") || state.startsWith("23"));
        }

        @Override
        boolean isStorageFailure(SQLException e) {
            // disk_full and io_error.
            return "53100".equals(e.getSQLState()) || "58030".equals(e.getSQLState());
        }
    };

    private final String displayName;

    Dialect(String displayName) {
        this.displayName = displayName;
    }

    /** The Flyway location of this database's own migrations (beside the portable ones in db/migration). */
    abstract String migrations();

    /** A condition on the conversation row {@code alias}: its title matches the one parameter, a {@link #matchOf} text. */
    abstract String titleMatches(String alias);

    /** A condition on the entry row {@code alias}: a message, answer or command output whose text matches the one parameter. */
    abstract String entryMatches(String alias);

    /** A condition on the attachment row {@code alias}: its document's name or text matches the one parameter. */
    abstract String attachmentMatches(String alias);

    /** The full-text query of one term: its words in a row (one word alone), the last as the start of a word. */
    abstract String matchOf(SearchQuery.Term term);

    /** Starts a transaction on an auto-commit connection. */
    abstract void begin(Connection connection) throws SQLException;

    /**
     * {@link #begin}, after every other transaction begun in the same {@code sequence} has ended, on any instance.
     * SQLite's immediate transaction holds the database's one write lock, which is that already.
     */
    void beginInSequence(Connection connection, String sequence) throws SQLException {
        begin(connection);
    }

    /** Commits what {@link #begin} started and leaves the connection in auto-commit mode. */
    abstract void commit(Connection connection) throws SQLException;

    /** Rolls back what {@link #begin} started and leaves the connection in auto-commit mode. */
    abstract void rollback(Connection connection) throws SQLException;

    /** The suffix of a {@code SELECT} that locks the rows it reads until the transaction ends. */
    abstract String lockForUpdate();

    /** The suffix of a {@code SELECT} that keeps the rows it reads from being changed until the transaction ends. */
    abstract String lockShared();

    /** The suffix of a {@code SELECT} that keeps the rows it reads from being deleted meanwhile. */
    abstract String lockAgainstDelete();

    /** An {@code ORDER BY} term sorting a text column the same way on every database. */
    abstract String inCodePointOrder(String column);

    /**
     * Whether the database refused the data itself (a constraint, a value it cannot hold): trying
     * the same statement again cannot succeed, unlike a lost connection or a lock timeout.
     */
    abstract boolean isRejection(SQLException e);

    /** Whether the database could not write for lack of room or a failing disk: it answers, and may once there is room. */
    abstract boolean isStorageFailure(SQLException e);

    @Override
    public String toString() {
        return displayName;
    }

    private static void execute(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
