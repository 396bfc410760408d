package dev.skillforge.server.store;

import dev.skillforge.server.people.Preferences;

import java.util.Objects;
import java.util.Optional;

/** The {@link PreferencesStore} in the conversation database: one row a person. */
public final class JdbcPreferencesStore implements PreferencesStore {

    private final Transactions work;

    public JdbcPreferencesStore(Database database) {
        this.work = new Transactions(Objects.requireNonNull(database, "database"));
    }

    @Override
    public Preferences of(String personId) {
        return work.rows("read a person's preferences", "SELECT default_provider, theme, instructions FROM preferences WHERE person_id = ?",
                rows -> new Preferences(Optional.ofNullable(rows.getString(1)), Preferences.Theme.fromWire(rows.getString(2)),
                        rows.getString(3)), personId).stream().findFirst().orElse(Preferences.NONE);
    }

    @Override
    public void save(String personId, Preferences preferences, long nowMillis) {
        work.write("save a person's preferences", connection -> Transactions.update(connection,
                "INSERT INTO preferences (person_id, default_provider, theme, instructions, updated_at) VALUES (?, ?, ?, ?, ?)"
                        + " ON CONFLICT (person_id) DO UPDATE SET default_provider = excluded.default_provider, theme = excluded.theme,"
                        + " instructions = excluded.instructions, updated_at = excluded.updated_at",
                personId, preferences.defaultProvider().orElse(null), preferences.theme().wireName(), preferences.instructions(), nowMillis));
    }
}
