package dev.skillforge.server.store;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * PostgreSQL's {@code LISTEN}/{@code NOTIFY}: short messages between the server instances that share
 * one database, with no other broker. A message is delivered to every session listening on its
 * channel when it is published, and to nobody else (nothing is kept for a listener that comes later).
 * Payloads are text under {@link #MAX_PAYLOAD_BYTES} bytes.
 */
public final class Notifications {

    /** PostgreSQL refuses payloads of 8000 bytes or more; a little is kept for the protocol's own words. */
    public static final int MAX_PAYLOAD_BYTES = 7_800;

    private final Database database;

    private Notifications(Database database) {
        this.database = database;
    }

    /** Notifications on {@code database}, if it is PostgreSQL (an embedded SQLite database has only one instance). */
    public static Optional<Notifications> on(Database database) {
        return database.dialect() == Dialect.POSTGRESQL ? Optional.of(new Notifications(database)) : Optional.empty();
    }

    /**
     * Publishes one message.
     *
     * @throws StoreException when the database cannot be reached
     */
    public void publish(String channel, String payload) {
        try (Connection connection = database.connection();
             PreparedStatement notify = connection.prepareStatement("SELECT pg_notify(?, ?)")) {
            notify.setString(1, channel);
            notify.setString(2, payload);
            notify.execute();
        } catch (SQLException e) {
            throw new StoreException("Could not notify the other instances on the " + database.description() + ": " + e.getMessage(), e);
        }
    }

    /**
     * A session of its own (not from the pool: it stays open while subscribed) listening on {@code channel}.
     *
     * @param channel letters, digits and underscores only
     * @throws StoreException when the database cannot be reached
     */
    public Subscription subscribe(String channel) {
        if (!channel.matches("[a-z0-9_]{1,63}")) {
            throw new IllegalArgumentException("not a channel name: " + channel);
        }
        Connection connection = null;
        try {
            connection = database.dedicatedConnection();
            try (Statement listen = connection.createStatement()) {
                listen.execute("LISTEN " + channel);
            }
            return new Subscription(connection, database.description());
        } catch (SQLException e) {
            closeQuietly(connection);
            throw new StoreException("Could not listen for the other instances on the " + database.description() + ": " + e.getMessage(), e);
        }
    }

    /** What one {@link #subscribe} hears, read by one thread at a time. */
    public static final class Subscription implements AutoCloseable {

        private final Connection connection;
        private final String description;

        private Subscription(Connection connection, String description) {
            this.connection = connection;
            this.description = description;
        }

        /**
         * The messages that arrived, waiting up to {@code wait} for the first.
         *
         * @throws StoreException when the session broke (subscribe again)
         */
        public List<String> poll(Duration wait) {
            try {
                PGNotification[] arrived = connection.unwrap(PGConnection.class).getNotifications((int) Math.max(1, wait.toMillis()));
                List<String> payloads = new ArrayList<>();
                if (arrived != null) {
                    for (PGNotification notification : arrived) {
                        payloads.add(notification.getParameter());
                    }
                }
                return payloads;
            } catch (SQLException e) {
                throw new StoreException("Listening on the " + description + " failed: " + e.getMessage(), e);
            }
        }

        @Override
        public void close() {
            closeQuietly(connection);
        }
    }

    private static void closeQuietly(Connection connection) {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // it is going away anyway
            }
        }
    }

    @Override
    public String toString() {
        return "Notifications[" + Objects.toString(database.description()) + "]";
    }
}
