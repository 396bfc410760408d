package dev.skillforge.server.store;

import dev.skillforge.server.store.ConversationStore.Renewal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The leases of {@link JdbcConversationStore}: which instance runs a conversation's turns, until when, with an epoch
 * that grows with each new holder (the store's writes are fenced by it). Apart from the store's writer, which only
 * checks an epoch inside its batches.
 */
final class JdbcLeases {

    private static final String ENSURE_LEASE_ROW = "INSERT INTO leases"
            + " (conversation_id, owner, epoch, expires_at, requested_by) VALUES (?, NULL, 0, 0, NULL)"
            + " ON CONFLICT (conversation_id) DO NOTHING";
    private static final String TAKE_LEASE =
            "UPDATE leases SET owner = ?, epoch = ?, expires_at = ?, requested_by = ? WHERE conversation_id = ?";
    private static final String REQUEST_LEASE = "UPDATE leases SET requested_by = ? WHERE conversation_id = ?";
    private static final String LEASES_HELD_BY = "SELECT conversation_id FROM leases WHERE owner = ?";
    /** Served by the partial index {@code leases_requested} (V14), which holds only the rows with a request pending. */
    private static final String LEASES_REQUESTED_FROM =
            "SELECT conversation_id FROM leases WHERE requested_by IS NOT NULL AND owner = ? AND requested_by <> owner";
    private static final String RELEASE_LEASE =
            "UPDATE leases SET owner = NULL, requested_by = NULL WHERE conversation_id = ? AND owner = ?";

    private final Transactions transactions;
    private final Dialect dialect;
    private final String selectLease;

    JdbcLeases(Transactions transactions, Dialect dialect) {
        this.transactions = transactions;
        this.dialect = dialect;
        this.selectLease = "SELECT owner, epoch, expires_at, requested_by FROM leases WHERE conversation_id = ?"
                + dialect.lockForUpdate();
    }

    /**
     * Taken when nobody holds it, when {@code owner} holds it already (the epoch stays) or when
     * the holder's lease expired at {@code nowMillis} (expiry {@code <= now}); the epoch grows by
     * one whenever the holder changes, a released lease included, and a pending request from
     * another instance survives a renewal by the same owner. Otherwise {@code requested_by} is
     * set to {@code owner} and the holder is returned.
     */
    Lease acquire(String conversationId, String owner, long nowMillis, long ttlMillis) {
        Objects.requireNonNull(conversationId, "conversationId");
        Objects.requireNonNull(owner, "owner");
        long expiresAt = expiry(nowMillis, ttlMillis);
        return transactions.write("acquire the lease of conversation " + conversationId, connection -> {
            Transactions.update(connection, ENSURE_LEASE_ROW, conversationId);
            LeaseRow row;
            try (PreparedStatement select = connection.prepareStatement(selectLease)) {
                select.setString(1, conversationId);
                try (ResultSet rows = select.executeQuery()) {
                    rows.next();
                    row = new LeaseRow(rows.getString(1), rows.getLong(2), rows.getLong(3), rows.getString(4));
                }
            }
            boolean heldElsewhere = row.owner != null && !row.owner.equals(owner) && row.expiresAt > nowMillis;
            if (heldElsewhere) {
                Transactions.update(connection, REQUEST_LEASE, owner, conversationId);
                return new Lease.HeldElsewhere(conversationId, row.owner, row.expiresAt);
            }
            boolean sameHolder = owner.equals(row.owner);
            long epoch = sameHolder ? row.epoch : row.epoch + 1;
            String stillRequested = sameHolder && !owner.equals(row.requestedBy) ? row.requestedBy : null;
            try (PreparedStatement take = connection.prepareStatement(TAKE_LEASE)) {
                take.setString(1, owner);
                take.setLong(2, epoch);
                take.setLong(3, expiresAt);
                take.setString(4, stillRequested);
                take.setString(5, conversationId);
                take.executeUpdate();
            }
            return new Lease.Held(conversationId, epoch, expiresAt);
        });
    }

    private record LeaseRow(String owner, long epoch, long expiresAt, String requestedBy) {
    }

    /**
     * A lease still recorded for {@code owner} is extended even if it expired meanwhile: nobody
     * else took it. Leases taken over by another instance are left out of the answer.
     */
    Renewal renew(String owner, Set<String> conversationIds, long nowMillis, long ttlMillis) {
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(conversationIds, "conversationIds");
        long expiresAt = expiry(nowMillis, ttlMillis);
        if (conversationIds.isEmpty()) {
            return new Renewal(Set.of(), Set.of(), Set.of());
        }
        List<String> ids = new ArrayList<>(conversationIds);
        Collections.sort(ids); // one lock order for every renewer
        return transactions.write("renew " + ids.size() + " leases", connection -> {
            Set<String> held = new LinkedHashSet<>();
            Set<String> requested = new LinkedHashSet<>();
            for (int from = 0; from < ids.size(); from += JdbcConversationStore.IN_LIST_CHUNK) {
                List<String> chunk = ids.subList(from, Math.min(ids.size(), from + JdbcConversationStore.IN_LIST_CHUNK));
                String in = String.join(", ", Collections.nCopies(chunk.size(), "?"));
                // Read and lock the rows in id order before the UPDATE (which locks them in the order it finds
                // them): the order a write batch's fencing check takes them in, or the two deadlock (seen in
                // FleetTest). Locked, the rows read here are the ones the UPDATE extends.
                try (PreparedStatement select = connection.prepareStatement("SELECT conversation_id, requested_by FROM leases"
                        + " WHERE owner = ? AND conversation_id IN (" + in + ") ORDER BY "
                        + dialect.inCodePointOrder("conversation_id") + dialect.lockForUpdate())) {
                    select.setString(1, owner);
                    for (int i = 0; i < chunk.size(); i++) {
                        select.setString(2 + i, chunk.get(i));
                    }
                    try (ResultSet rows = select.executeQuery()) {
                        while (rows.next()) {
                            held.add(rows.getString(1));
                            String requestedBy = rows.getString(2);
                            if (requestedBy != null && !requestedBy.equals(owner)) {
                                requested.add(rows.getString(1));
                            }
                        }
                    }
                }
                try (PreparedStatement extend = connection.prepareStatement(
                        "UPDATE leases SET expires_at = ? WHERE owner = ? AND conversation_id IN (" + in + ")")) {
                    extend.setLong(1, expiresAt);
                    extend.setString(2, owner);
                    for (int i = 0; i < chunk.size(); i++) {
                        extend.setString(3 + i, chunk.get(i));
                    }
                    extend.executeUpdate();
                }
            }
            return new Renewal(Set.copyOf(held), Set.copyOf(requested), unleased(connection, ids, held));
        });
    }

    /** Those of {@code ids} not in {@code held} that have no lease row at all. */
    private Set<String> unleased(Connection connection, List<String> ids, Set<String> held) throws SQLException {
        List<String> others = ids.stream().filter(id -> !held.contains(id)).toList();
        Set<String> unleased = new LinkedHashSet<>(others);
        for (int from = 0; from < others.size(); from += JdbcConversationStore.IN_LIST_CHUNK) {
            List<String> chunk = others.subList(from, Math.min(others.size(), from + JdbcConversationStore.IN_LIST_CHUNK));
            try (PreparedStatement select = connection.prepareStatement("SELECT conversation_id FROM leases WHERE conversation_id IN ("
                    + String.join(", ", Collections.nCopies(chunk.size(), "?")) + ")")) {
                for (int i = 0; i < chunk.size(); i++) {
                    select.setString(1 + i, chunk.get(i));
                }
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        unleased.remove(rows.getString(1));
                    }
                }
            }
        }
        return Set.copyOf(unleased);
    }

    Set<String> heldBy(String owner) {
        Objects.requireNonNull(owner, "owner");
        return Set.copyOf(transactions.rows("read the leases of " + owner, LEASES_HELD_BY, row -> row.getString(1), owner));
    }

    Set<String> requestedFrom(String owner) {
        Objects.requireNonNull(owner, "owner");
        return Set.copyOf(transactions.rows("read the requests for the leases of " + owner, LEASES_REQUESTED_FROM,
                row -> row.getString(1), owner));
    }

    /**
     * Clears the holder and any pending request; the row stays so that the next holder's epoch
     * is higher. Does nothing if {@code owner} does not hold the lease.
     */
    void release(String conversationId, String owner) {
        Objects.requireNonNull(conversationId, "conversationId");
        Objects.requireNonNull(owner, "owner");
        transactions.write("release the lease of conversation " + conversationId, connection -> {
            Transactions.update(connection, RELEASE_LEASE, conversationId, owner);
            return null;
        });
    }

    private static long expiry(long nowMillis, long ttlMillis) {
        if (ttlMillis < 0) {
            throw new IllegalArgumentException("ttlMillis must be at least 0, was " + ttlMillis);
        }
        long expiresAt = nowMillis + ttlMillis;
        return expiresAt < nowMillis ? Long.MAX_VALUE : expiresAt; // saturate instead of wrapping
    }
}
