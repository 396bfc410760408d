package dev.skillforge.server.store;

import dev.skillforge.core.transcript.StorableText;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.Lock;

/**
 * Reads and write transactions on a {@link Database}, the same way for every store on it: a write
 * runs in one transaction (on SQLite behind the process's one writer lock and {@code BEGIN IMMEDIATE}),
 * all or nothing; a failure becomes a {@link StoreException} that says what was being done on which
 * database, a {@link StoreRejectedException} when the database refused the data itself, or a
 * {@link StorageFailureException} when it could not write for lack of room or a failing disk.
 *
 * <p>Thread-safe.
 */
public final class Transactions {

    /** Driver messages can quote long SQL; errors and logs need only the start. */
    private static final int MAX_MESSAGE_CHARS = 600;

    /** Work on a connection. */
    @FunctionalInterface
    public interface SqlWork<T> {
        T run(Connection connection) throws SQLException;
    }

    /** Reads one row of a result. */
    @FunctionalInterface
    public interface RowReader<T> {
        T read(ResultSet row) throws SQLException;
    }

    private final Database database;
    private final Dialect dialect;

    public Transactions(Database database) {
        this.database = Objects.requireNonNull(database, "database");
        this.dialect = database.dialect();
    }

    /** Runs {@code work} in one write transaction; {@code what} names it in a failure ("apply 3 writes"). */
    public <T> T write(String what, SqlWork<T> work) {
        return write(what, null, work);
    }

    private <T> T write(String what, String sequence, SqlWork<T> work) {
        Lock lock = database.writeLock();
        lock.lock();
        try (Connection connection = database.connection()) {
            if (sequence == null) {
                dialect.begin(connection);
            } else {
                dialect.beginInSequence(connection, sequence);
            }
            try {
                T result = work.run(connection);
                dialect.commit(connection);
                return result;
            } catch (SQLException | RuntimeException | Error e) {
                // An Error too: given back to the pool with its transaction open, a connection would have it committed
                // when the pool turns auto-commit back on (the statements run on what the pool wraps, which it does not see).
                PreparedStatements.discard(connection, e);
                rollback(connection, e);
                throw e;
            }
        } catch (SQLException e) {
            throw failure(what, e);
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@link #write} after every other write of the same {@code sequence} (say, one person's skills) on any instance
     * has ended, so that a write that reads the newest row and adds the next one always builds on the newest: two
     * instances adding to one sequence at once end as two consecutive rows, neither lost. Run again (up to
     * {@code attempts} times in all) when it still collided with a write outside the sequence (a shared row inserted
     * by two sequences at once).
     */
    public <T> T writeInSequence(String what, String sequence, int attempts, SqlWork<T> work) {
        Objects.requireNonNull(sequence, "sequence");
        for (int attempt = 1; ; attempt++) {
            try {
                return write(what, sequence, work);
            } catch (StoreRejectedException e) {
                if (attempt >= attempts || !(e.getCause() instanceof SQLException cause) || !isConflict(cause)) {
                    throw e;
                }
            }
        }
    }

    /** Runs {@code work} on a pooled connection in auto-commit mode. */
    public <T> T read(String what, SqlWork<T> work) {
        try (Connection connection = database.connection()) {
            try {
                return work.run(connection);
            } catch (SQLException | RuntimeException e) {
                PreparedStatements.discard(connection, e);
                throw e;
            }
        } catch (SQLException e) {
            throw failure(what, e);
        }
    }

    /** Every row {@code sql} selects with {@code parameters}, each read by {@code reader}, in order. */
    public <T> List<T> rows(String what, String sql, RowReader<T> reader, Object... parameters) {
        return read(what, connection -> rows(connection, sql, reader, parameters));
    }

    /**
     * {@link #rows(String, String, RowReader, Object...)} on a connection the caller holds (inside a transaction or a
     * {@link #read}). The statement stays prepared on the connection ({@link PreparedStatements}): {@code reader} must
     * not run the same SQL on it.
     */
    public static <T> List<T> rows(Connection connection, String sql, RowReader<T> reader, Object... parameters) throws SQLException {
        return select(PreparedStatements.prepared(connection, sql), reader, parameters);
    }

    /**
     * {@link #rows(String, String, RowReader, Object...)} for SQL built for this one call (an {@code IN} list as long as
     * its ids, a search's conditions): prepared for this use alone, so that it does not push the statements used on
     * every turn out of the connection's {@link PreparedStatements}.
     */
    public <T> List<T> rowsOnce(String what, String sql, RowReader<T> reader, Object... parameters) {
        return read(what, connection -> rowsOnce(connection, sql, reader, parameters));
    }

    /** {@link #rowsOnce(String, String, RowReader, Object...)} on a connection the caller holds. */
    public static <T> List<T> rowsOnce(Connection connection, String sql, RowReader<T> reader, Object... parameters) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(sql)) {
            return select(select, reader, parameters);
        }
    }

    private static <T> List<T> select(PreparedStatement select, RowReader<T> reader, Object... parameters) throws SQLException {
        for (int i = 0; i < parameters.length; i++) {
            select.setObject(i + 1, parameters[i]);
        }
        try (ResultSet rows = select.executeQuery()) {
            List<T> found = new ArrayList<>();
            while (rows.next()) {
                found.add(reader.read(rows));
            }
            return List.copyOf(found);
        }
    }

    /** Runs one update with {@code parameters} in a transaction of its own; the number of rows it changed. */
    public int update(String what, String sql, Object... parameters) {
        return write(what, connection -> update(connection, sql, parameters));
    }

    /** Runs an update with {@code parameters} on a connection the caller holds; the number of rows it changed. */
    public static int update(Connection connection, String sql, Object... parameters) throws SQLException {
        PreparedStatement statement = PreparedStatements.prepared(connection, sql);
        for (int i = 0; i < parameters.length; i++) {
            statement.setObject(i + 1, parameters[i]);
        }
        return statement.executeUpdate();
    }

    /** The database's own spelling of an {@code ORDER BY} on a text column that sorts the same on both databases. */
    public String inCodePointOrder(String column) {
        return dialect.inCodePointOrder(column);
    }

    private static boolean isConflict(SQLException e) {
        for (SQLException cause : chain(e)) {
            if ("23505".equals(cause.getSQLState()) || "23503".equals(cause.getSQLState()) // PostgreSQL's unique and foreign key violations
                    || cause.getErrorCode() == 1555 || cause.getErrorCode() == 2067) { // SQLite's PRIMARYKEY and UNIQUE constraints
                return true;
            }
        }
        return false;
    }

    private void rollback(Connection connection, Throwable cause) {
        try {
            dialect.rollback(connection);
        } catch (SQLException | RuntimeException e) {
            cause.addSuppressed(e);
            // The transaction may still be open: a connection in that state must not be reused.
            database.evict(connection);
        }
    }

    /**
     * A {@link StoreRejectedException} when the database refused the data, a {@link StorageFailureException} when it
     * could not write for lack of room or a failing disk (either anywhere in the chain: drivers wrap the cause of a
     * failed batch), else a {@link StoreException}.
     */
    StoreException failure(String what, SQLException e) {
        boolean rejected = false;
        boolean storageFailure = false;
        String detail = null;
        for (SQLException cause : chain(e)) {
            rejected |= dialect.isRejection(cause);
            storageFailure |= dialect.isStorageFailure(cause);
            if (cause != e && detail == null && cause.getMessage() != null && !cause.getMessage().equals(e.getMessage())) {
                detail = cause.getMessage();
            }
        }
        StringBuilder message = new StringBuilder("Could not ").append(what).append(" on the ")
                .append(database.description()).append(": ").append(e.getMessage());
        if (detail != null) {
            message.append(" (").append(detail).append(')');
        }
        if (e.getSQLState() != null) {
            message.append(" [SQLState ").append(e.getSQLState()).append(']');
        }
        String text = StorableText.abbreviate(message.toString(), MAX_MESSAGE_CHARS);
        if (rejected) {
            return new StoreRejectedException(text, e);
        }
        return storageFailure ? new StorageFailureException(text, e) : new StoreException(text, e);
    }

    /** The exception with its causes and next exceptions, each once, in the order met. */
    private static List<SQLException> chain(SQLException e) {
        List<SQLException> chain = new ArrayList<>();
        List<Throwable> toVisit = new ArrayList<>(List.of(e));
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        while (!toVisit.isEmpty() && seen.size() < 20) {
            Throwable next = toVisit.removeFirst();
            if (next == null || !seen.add(next)) {
                continue;
            }
            if (next instanceof SQLException sql) {
                chain.add(sql);
                toVisit.add(sql.getNextException());
            }
            toVisit.add(next.getCause());
        }
        return chain;
    }
}
