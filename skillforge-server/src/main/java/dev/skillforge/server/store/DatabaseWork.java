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
import java.util.Set;
import java.util.concurrent.locks.Lock;

/**
 * The JDBC plumbing every store on a {@link Database} shares: reads, write transactions, and failures turned
 * into {@link StoreException}s that say what could not be done, on which database, and why.
 */
final class DatabaseWork {

    private static final int MAX_MESSAGE_CHARS = 600;

    private final Database database;
    private final Dialect dialect;

    DatabaseWork(Database database) {
        this.database = database;
        this.dialect = database.dialect();
    }

    @FunctionalInterface
    interface SqlWork<T> {
        T run(Connection connection) throws SQLException;
    }

    /** Runs {@code work} in one transaction (for SQLite, on this process's one write lock), rolled back if it fails. */
    <T> T inWriteTransaction(String what, SqlWork<T> work) {
        Lock lock = database.writeLock();
        lock.lock();
        try (Connection connection = database.connection()) {
            dialect.begin(connection);
            try {
                T result = work.run(connection);
                dialect.commit(connection);
                return result;
            } catch (SQLException | RuntimeException e) {
                rollback(connection, e);
                throw e;
            }
        } catch (SQLException e) {
            throw failure(what, e);
        } finally {
            lock.unlock();
        }
    }

    private void rollback(Connection connection, Exception cause) {
        try {
            dialect.rollback(connection);
        } catch (SQLException | RuntimeException e) {
            cause.addSuppressed(e);
            // The transaction may still be open: a connection in that state must not be reused.
            database.evict(connection);
        }
    }

    /** Runs {@code work} on a pooled connection in auto-commit mode. */
    <T> T read(String what, SqlWork<T> work) {
        try (Connection connection = database.connection()) {
            return work.run(connection);
        } catch (SQLException e) {
            throw failure(what, e);
        }
    }

    /** Reads one row of a result. */
    @FunctionalInterface
    interface RowReader<T> {
        T read(ResultSet row) throws SQLException;
    }

    /** Every row {@code sql} selects with {@code parameters}, each read by {@code reader}, in order. */
    <T> List<T> rows(String what, String sql, RowReader<T> reader, Object... parameters) {
        return read(what, connection -> {
            try (PreparedStatement select = connection.prepareStatement(sql)) {
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
        });
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
