package dev.skillforge.server.store;

import dev.skillforge.server.people.Preferences;

import java.util.Objects;
import java.util.Optional;

/** Each person's {@link Preferences}, one row each, in the conversation database (every instance reads the same). */
public final class JdbcPreferencesStore {

    private final Transactions work;

    public JdbcPreferencesStore(Database database) {
        this.work = new Transactions(Objects.requireNonNull(database, "database"));
    }

    /** What {@code personId} chose, or {@link Preferences#NONE} when they never saved any. */
    public Preferences of(String personId) {
        return work.rows("read a person's preferences", "SELECT default_provider, theme, instructions FROM preferences WHERE person_id = ?",
                rows -> new Preferences(Optional.ofNullable(rows.getString(1)), Preferences.Theme.fromWire(rows.getString(2)),
                        rows.getString(3)), personId).stream().findFirst().orElse(Preferences.NONE);
    }

    /** Replaces what {@code personId} chose. */
    public void save(String personId, Preferences preferences, long nowMillis) {
        work.write("save a person's preferences", connection -> Transactions.update(connection,
                "INSERT INTO preferences (person_id, default_provider, theme, instructions, updated_at) VALUES (?, ?, ?, ?, ?)"
                        + " ON CONFLICT (person_id) DO UPDATE SET default_provider = excluded.default_provider, theme = excluded.theme,"
                        + " instructions = excluded.instructions, updated_at = excluded.updated_at",
                personId, preferences.defaultProvider().orElse(null), preferences.theme().wireName(), preferences.instructions(), nowMillis));
    }
}
