package dev.skillforge.server.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Statements kept prepared on each physical connection for their next use there. sqlite-jdbc keeps no statement cache
 * and prepares every statement anew: {@code skill list}'s query and the other per-turn reads spent 4.6 % of the
 * server's CPU preparing at 100 running turns (JFR), beside the store writer's batches, which kept their own cache
 * before this one. At most {@value #MOST_PER_CONNECTION} a connection, the least recently used closed past that; SQL
 * built for one call goes through {@link Transactions#rowsOnce} instead, which does not keep it.
 *
 * <p>A statement belongs to whoever holds its connection, one use at a time: each use sets all its parameters and reads
 * its rows before the same SQL is used again on that connection. A failed transaction or read {@linkplain #discard
 * discards} its connection's statements, so that the next use starts from fresh ones. Statements are prepared on the
 * connection the pool wraps (its wrapper would close them when the connection goes back to the pool); a connection the
 * pool closed takes its statements with it and leaves this map when the next connection is first seen.
 */
final class PreparedStatements {

    static final int MOST_PER_CONNECTION = 64;

    /** By physical connection; guarded by itself. Each inner map is touched only by its connection's holder. */
    private static final Map<Connection, Map<String, PreparedStatement>> BY_CONNECTION = new IdentityHashMap<>();

    private PreparedStatements() {
    }

    /** {@code sql} prepared on {@code connection} (or what it wraps), its parameters cleared. */
    static PreparedStatement prepared(Connection connection, String sql) throws SQLException {
        Connection physical = connection.unwrap(Connection.class);
        Map<String, PreparedStatement> statements = of(physical);
        PreparedStatement statement = statements.get(sql);
        if (statement == null || statement.isClosed()) {
            statement = physical.prepareStatement(sql);
            statements.put(sql, statement);
        } else {
            statement.clearParameters();
        }
        return statement;
    }

    /** Closes {@code connection}'s statements after {@code failure}, which gets any failure to close them. */
    static void discard(Connection connection, Throwable failure) {
        Map<String, PreparedStatement> statements;
        try {
            Connection physical = connection.unwrap(Connection.class);
            synchronized (BY_CONNECTION) {
                statements = BY_CONNECTION.remove(physical);
            }
        } catch (SQLException e) {
            failure.addSuppressed(e);
            return;
        }
        if (statements != null) {
            for (PreparedStatement statement : statements.values()) {
                close(statement, failure);
            }
        }
    }

    private static Map<String, PreparedStatement> of(Connection physical) {
        synchronized (BY_CONNECTION) {
            Map<String, PreparedStatement> statements = BY_CONNECTION.get(physical);
            if (statements == null) {
                BY_CONNECTION.keySet().removeIf(PreparedStatements::closed); // connections the pool retired since
                statements = new LeastRecentlyUsed();
                BY_CONNECTION.put(physical, statements);
            }
            return statements;
        }
    }

    private static boolean closed(Connection connection) {
        try {
            return connection.isClosed();
        } catch (SQLException e) {
            return true;
        }
    }

    private static void close(PreparedStatement statement, Throwable failure) {
        try {
            statement.close();
        } catch (SQLException e) {
            if (failure != null) {
                failure.addSuppressed(e);
            }
        }
    }

    /** One connection's statements in order of use; the one used longest ago is closed past the limit. */
    private static final class LeastRecentlyUsed extends LinkedHashMap<String, PreparedStatement> {
        LeastRecentlyUsed() {
            super(16, 0.75f, true);
        }

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, PreparedStatement> eldest) {
            if (size() <= MOST_PER_CONNECTION) {
                return false;
            }
            close(eldest.getValue(), null);
            return true;
        }
    }
}
