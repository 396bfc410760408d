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
 * channel when it is published, and to nobody else (nothing is kept for a listener that comes later,
 * nor for one whose session broke meanwhile). Payloads are text under {@link #MAX_PAYLOAD_BYTES} bytes.
 *
 * <p>Publishing borrows a pooled connection for one transaction. Listening takes a session of its own,
 * outside the pool, for as long as it listens: an instance needs one, however many channels it hears.
 */
public final class Notifications {

    /** PostgreSQL refuses payloads of 8000 bytes or more; a little is kept for the protocol's own words. */
    public static final int MAX_PAYLOAD_BYTES = 7_800;

    /** One message as it arrived: the channel it was published on, and its payload. */
    public record Notification(String channel, String payload) {
    }

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
        publish(channel, List.of(payload));
    }

    /**
     * Publishes messages on one channel in one transaction: listeners get all of them, in this order, or none.
     * (PostgreSQL delivers a message only once per transaction: payloads repeated within one call arrive once.)
     *
     * @throws StoreException when the database cannot be reached
     */
    public void publish(String channel, List<String> payloads) {
        if (payloads.isEmpty()) {
            return;
        }
        try (Connection connection = database.connection()) {
            connection.setAutoCommit(false);
            try (PreparedStatement notify = connection.prepareStatement("SELECT pg_notify(?, ?)")) {
                for (String payload : payloads) {
                    notify.setString(1, channel);
                    notify.setString(2, payload);
                    notify.execute();
                }
                connection.commit();
            } catch (SQLException e) {
                connection.rollback();
                throw e;
            } finally {
                connection.setAutoCommit(true);
            }
        } catch (SQLException e) {
            throw new StoreException("Could not notify the other instances on the " + database.description() + ": " + e.getMessage(), e);
        }
    }

    /**
     * A session of its own (not from the pool: it stays open while subscribed) listening on every one of
     * {@code channels}. It shows in {@code pg_stat_activity} under the pool's application name followed by
     * {@code (listening)}.
     *
     * @param channels letters, digits and underscores only
     * @throws StoreException when the database cannot be reached
     */
    public Subscription subscribe(List<String> channels) {
        for (String channel : channels) {
            if (!channel.matches("[a-z0-9_]{1,63}")) {
                throw new IllegalArgumentException("not a channel name: " + channel);
            }
        }
        Connection connection = null;
        try {
            connection = database.dedicatedConnection();
            try (Statement listen = connection.createStatement()) {
                listen.execute("SELECT set_config('application_name', current_setting('application_name') || ' (listening)', false)");
                for (String channel : channels) {
                    listen.execute("LISTEN " + channel);
                }
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
         * The messages that arrived, in the order they were published, waiting up to {@code wait} for the first.
         *
         * @throws StoreException when the session broke (subscribe again)
         */
        public List<Notification> poll(Duration wait) {
            try {
                PGNotification[] arrived = connection.unwrap(PGConnection.class).getNotifications((int) Math.max(1, wait.toMillis()));
                List<Notification> notifications = new ArrayList<>();
                if (arrived != null) {
                    for (PGNotification notification : arrived) {
                        notifications.add(new Notification(notification.getName(), notification.getParameter()));
                    }
                }
                return notifications;
            } catch (SQLException e) {
                throw new StoreException("Listening on the " + description + " failed: " + e.getMessage(), e);
            }
        }

        /**
         * Makes sure the session still answers within {@code timeout}: a connection cut without a word (a
         * network partition) brings no error to a listener that only waits.
         *
         * @throws StoreException when it does not (subscribe again)
         */
        public void check(Duration timeout) {
            boolean answers;
            try {
                answers = connection.isValid((int) Math.max(1, timeout.toSeconds()));
            } catch (SQLException e) {
                answers = false;
            }
            if (!answers) {
                throw new StoreException("The listening session on the " + description + " no longer answers", null);
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
