package dev.skillforge.server;

import dev.skillforge.server.skill.SkillLimits;
import dev.skillforge.server.skill.SkillStore;
import dev.skillforge.server.skill.jdbc.JdbcSkillStore;
import dev.skillforge.server.store.ConversationStore;
import dev.skillforge.server.store.JdbcConversationStore;
import dev.skillforge.server.store.JdbcPeopleStore;
import dev.skillforge.server.store.JdbcPreferencesStore;
import dev.skillforge.server.store.Notifications;
import dev.skillforge.server.store.PeopleStore;
import dev.skillforge.server.store.PreferencesStore;

import java.time.InstantSource;
import java.util.Objects;
import java.util.Optional;

/** {@link Storage} in one SQLite or PostgreSQL database: the conversation store's, whose pool every store here shares. */
public final class JdbcStorage implements Storage {

    private final JdbcConversationStore database;

    /** @param database the conversation store on the database; it belongs to this storage from now on */
    public JdbcStorage(JdbcConversationStore database) {
        this.database = Objects.requireNonNull(database, "database");
    }

    @Override
    public ConversationStore conversations() {
        return database;
    }

    @Override
    public SkillStore skills(SkillLimits limits, InstantSource clock) {
        return new JdbcSkillStore(database.database(), limits, clock);
    }

    @Override
    public PeopleStore people() {
        return new JdbcPeopleStore(database.database());
    }

    @Override
    public PreferencesStore preferences() {
        return new JdbcPreferencesStore(database.database());
    }

    @Override
    public Optional<Notifications> notifications() {
        return Notifications.on(database.database());
    }

    @Override
    public String description() {
        return database.database().description();
    }

    @Override
    public void close() {
        database.close();
    }
}
