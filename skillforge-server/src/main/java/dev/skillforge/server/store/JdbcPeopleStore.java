package dev.skillforge.server.store;

import dev.skillforge.server.people.Caller;
import dev.skillforge.server.people.Person;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * The {@link PeopleStore} in the conversation database. A session or token is resolved to its person and checked not
 * disabled in one query.
 */
public final class JdbcPeopleStore implements PeopleStore {

    private static final String PERSON_COLUMNS = "id, issuer, subject, name, email, email_verified, disabled, monthly_budget_micros,"
            + " first_sign_in, last_sign_in";
    private static final String PERSON_COLUMNS_OF_P = "p.id, p.issuer, p.subject, p.name, p.email, p.email_verified, p.disabled,"
            + " p.monthly_budget_micros, p.first_sign_in, p.last_sign_in";

    private final Database database;
    private final Transactions work;

    public JdbcPeopleStore(Database database) {
        this.database = Objects.requireNonNull(database, "database");
        this.work = new Transactions(database);
    }

    // ---------------------------------------------------------------------------------- people

    @Override
    public Person signedIn(String issuer, String subject, String name, String email, boolean emailVerified, long nowMillis) {
        return work.write("record a sign-in", connection -> {
            int verified = emailVerified ? 1 : 0;
            if (Transactions.update(connection, "UPDATE people SET name = ?, email = ?, email_verified = ?, last_sign_in = ?"
                    + " WHERE issuer = ? AND subject = ?", name, email, verified, nowMillis, issuer, subject) == 0) {
                Transactions.update(connection, "INSERT INTO people (" + PERSON_COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, 0, NULL, ?, ?)"
                        + " ON CONFLICT (issuer, subject) DO NOTHING",
                        UUID.randomUUID().toString(), issuer, subject, name, email, verified, nowMillis, nowMillis);
            }
            try (PreparedStatement select = connection.prepareStatement("SELECT " + PERSON_COLUMNS + " FROM people WHERE issuer = ?"
                    + " AND subject = ?")) {
                select.setString(1, issuer);
                select.setString(2, subject);
                try (ResultSet rows = select.executeQuery()) {
                    rows.next();
                    return person(rows);
                }
            }
        });
    }

    @Override
    public Optional<Person> person(String issuer, String subject) {
        return work.rows("read a person", "SELECT " + PERSON_COLUMNS + " FROM people WHERE issuer = ? AND subject = ?",
                JdbcPeopleStore::person, issuer, subject).stream().findFirst();
    }

    @Override
    public Optional<Person> person(String id) {
        return work.rows("read a person", "SELECT " + PERSON_COLUMNS + " FROM people WHERE id = ?", JdbcPeopleStore::person, id)
                .stream().findFirst();
    }

    @Override
    public List<Summary> people(String month) {
        return work.rows("list the people", "SELECT " + PERSON_COLUMNS_OF_P + ","
                        + " (SELECT COUNT(*) FROM conversations c WHERE c.owner = p.id),"
                        + " (SELECT COUNT(*) FROM access_tokens t WHERE t.person_id = p.id),"
                        + " COALESCE((SELECT s.micro_usd FROM spend s WHERE s.person_id = p.id AND s.month = ?), 0)"
                        + " FROM people p ORDER BY p.first_sign_in, p.id",
                rows -> new Summary(person(rows), rows.getLong(11), rows.getLong(12), rows.getLong(13)), month);
    }

    @Override
    public Optional<Person> update(String id, Optional<Boolean> disabled, Optional<OptionalLong> budgetMicros) {
        work.write("change a person", connection -> {
            if (disabled.isPresent()) {
                Transactions.update(connection, "UPDATE people SET disabled = ? WHERE id = ?", disabled.get() ? 1 : 0, id);
                if (disabled.get()) {
                    Transactions.update(connection, "DELETE FROM sessions WHERE person_id = ?", id);
                }
            }
            if (budgetMicros.isPresent()) {
                try (PreparedStatement update = connection.prepareStatement("UPDATE people SET monthly_budget_micros = ? WHERE id = ?")) {
                    if (budgetMicros.get().isPresent()) {
                        update.setLong(1, budgetMicros.get().getAsLong());
                    } else {
                        update.setNull(1, Types.BIGINT);
                    }
                    update.setString(2, id);
                    update.executeUpdate();
                }
            }
            return null;
        });
        return person(id);
    }

    @Override
    public int claimLocal(String personId) {
        return work.write("give the one person's data to " + personId, connection -> {
            int conversations = Transactions.update(connection, "UPDATE conversations SET owner = ? WHERE owner = ?",
                    personId, Caller.LOCAL_ID);
            claimSkills(connection, personId);
            Transactions.update(connection, "UPDATE spend SET person_id = ? WHERE person_id = ?"
                    + " AND NOT EXISTS (SELECT 1 FROM spend mine WHERE mine.person_id = ? AND mine.month = spend.month)",
                    personId, Caller.LOCAL_ID, personId);
            Transactions.update(connection, "UPDATE preferences SET person_id = ? WHERE person_id = ?"
                    + " AND NOT EXISTS (SELECT 1 FROM preferences mine WHERE mine.person_id = ?)", personId, Caller.LOCAL_ID, personId);
            return conversations;
        });
    }

    /**
     * The one person's skills, versions and contents, copied to {@code personId} and then removed (their keys hold the
     * owner, which foreign keys tie together: copied rather than changed in place); only when {@code personId} has no
     * skill yet, so no name meets another.
     */
    private static void claimSkills(java.sql.Connection connection, String personId) throws SQLException {
        try (PreparedStatement mine = connection.prepareStatement("SELECT 1 FROM skill_versions WHERE owner = ?")) {
            mine.setString(1, personId);
            try (ResultSet rows = mine.executeQuery()) {
                if (rows.next()) {
                    return;
                }
            }
        }
        for (String sql : List.of(
                "INSERT INTO skill_blobs (owner, sha256, size, data) SELECT ?, sha256, size, data FROM skill_blobs WHERE owner = ?",
                "INSERT INTO skill_versions (owner, name, version, created_at, door, conversation_id, restored_from, deleted, description)"
                        + " SELECT ?, name, version, created_at, door, conversation_id, restored_from, deleted, description"
                        + " FROM skill_versions WHERE owner = ?",
                "INSERT INTO skill_version_files (owner, name, version, path, sha256, size)"
                        + " SELECT ?, name, version, path, sha256, size FROM skill_version_files WHERE owner = ?")) {
            Transactions.update(connection, sql, personId, Caller.LOCAL_ID);
        }
        for (String table : List.of("skill_version_files", "skill_versions", "skill_blobs")) {
            Transactions.update(connection, "DELETE FROM " + table + " WHERE owner = ?", Caller.LOCAL_ID);
        }
    }

    // -------------------------------------------------------------------------------- sessions

    @Override
    public void addSession(String secretHash, String personId, long nowMillis, long expiresAtMillis) {
        work.update("start a session", "INSERT INTO sessions (secret_hash, person_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
                secretHash, personId, nowMillis, expiresAtMillis);
    }

    @Override
    public Optional<Person> sessionPerson(String secretHash, long nowMillis) {
        return work.rows("read a session", "SELECT " + PERSON_COLUMNS_OF_P + " FROM sessions s JOIN people p ON p.id = s.person_id"
                + " WHERE s.secret_hash = ? AND s.expires_at > ? AND p.disabled = 0", JdbcPeopleStore::person, secretHash, nowMillis)
                .stream().findFirst();
    }

    @Override
    public void removeSession(String secretHash, long nowMillis) {
        work.update("end a session", "DELETE FROM sessions WHERE secret_hash = ? OR expires_at <= ?", secretHash, nowMillis);
    }

    // ---------------------------------------------------------------------------------- tokens

    @Override
    public Token addToken(String personId, String name, String secretHash, long nowMillis) {
        String id = UUID.randomUUID().toString();
        work.update("make a token", "INSERT INTO access_tokens (id, person_id, name, secret_hash, created_at, last_used_at)"
                + " VALUES (?, ?, ?, ?, ?, NULL)", id, personId, name, secretHash, nowMillis);
        return new Token(id, name, nowMillis, OptionalLong.empty());
    }

    @Override
    public List<Token> tokens(String personId) {
        return work.rows("list tokens", "SELECT id, name, created_at, last_used_at FROM access_tokens WHERE person_id = ?"
                        + " ORDER BY created_at DESC, id",
                rows -> {
                    long used = rows.getLong(4);
                    return new Token(rows.getString(1), rows.getString(2), rows.getLong(3),
                            rows.wasNull() ? OptionalLong.empty() : OptionalLong.of(used));
                }, personId);
    }

    @Override
    public boolean removeToken(String personId, String id) {
        return work.update("revoke a token", "DELETE FROM access_tokens WHERE id = ? AND person_id = ?", id, personId) > 0;
    }

    @Override
    public Optional<Person> tokenPerson(String secretHash) {
        return work.rows("read a token", "SELECT " + PERSON_COLUMNS_OF_P + " FROM access_tokens t JOIN people p ON p.id = t.person_id"
                + " WHERE t.secret_hash = ? AND p.disabled = 0", JdbcPeopleStore::person, secretHash).stream().findFirst();
    }

    @Override
    public void tokenUsed(String secretHash, long nowMillis) {
        work.update("note a token's use", "UPDATE access_tokens SET last_used_at = ? WHERE secret_hash = ?", nowMillis, secretHash);
    }

    // -------------------------------------------------------------------------------- sign-ins

    @Override
    public void addSignIn(String stateHash, String verifier, String nonce, long nowMillis) {
        work.update("start a sign-in", "INSERT INTO sign_ins (state_hash, verifier, nonce, created_at) VALUES (?, ?, ?, ?)",
                stateHash, verifier, nonce, nowMillis);
    }

    @Override
    public Optional<SignInAttempt> takeSignIn(String stateHash, long notBeforeMillis) {
        return work.write("finish a sign-in", connection -> {
            Optional<SignInAttempt> found = Optional.empty();
            try (PreparedStatement select = connection.prepareStatement("SELECT verifier, nonce, created_at FROM sign_ins"
                    + " WHERE state_hash = ? AND created_at > ?")) {
                select.setString(1, stateHash);
                select.setLong(2, notBeforeMillis);
                try (ResultSet rows = select.executeQuery()) {
                    if (rows.next()) {
                        found = Optional.of(new SignInAttempt(rows.getString(1), rows.getString(2), rows.getLong(3)));
                    }
                }
            }
            Transactions.update(connection, "DELETE FROM sign_ins WHERE state_hash = ? OR created_at <= ?", stateHash, notBeforeMillis);
            return found;
        });
    }

    // ----------------------------------------------------------------------------------- spend

    @Override
    public long spentMicros(String personId, String month) {
        return work.rows("read a person's spend", "SELECT micro_usd FROM spend WHERE person_id = ? AND month = ?",
                rows -> rows.getLong(1), personId, month).stream().findFirst().orElse(0L);
    }

    @Override
    public void addSpend(String personId, String month, long micros) {
        work.update("count a turn's cost", "INSERT INTO spend (person_id, month, micro_usd) VALUES (?, ?, ?)"
                + " ON CONFLICT (person_id, month) DO UPDATE SET micro_usd = spend.micro_usd + excluded.micro_usd", personId, month, micros);
    }

    private static Person person(ResultSet rows) throws SQLException {
        long budget = rows.getLong(8);
        OptionalLong monthlyBudget = rows.wasNull() ? OptionalLong.empty() : OptionalLong.of(budget);
        return new Person(rows.getString(1), rows.getString(2), rows.getString(3), rows.getString(4), rows.getString(5),
                rows.getInt(6) == 1, rows.getInt(7) == 1, monthlyBudget, rows.getLong(9), rows.getLong(10));
    }

    @Override
    public String toString() {
        return "JdbcPeopleStore[" + database.description() + "]";
    }
}
