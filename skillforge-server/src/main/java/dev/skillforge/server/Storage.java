package dev.skillforge.server;

import dev.skillforge.server.skill.SkillLimits;
import dev.skillforge.server.skill.SkillStore;
import dev.skillforge.server.store.ConversationStore;
import dev.skillforge.server.store.Notifications;
import dev.skillforge.server.store.PeopleStore;
import dev.skillforge.server.store.PreferencesStore;

import java.time.InstantSource;
import java.util.Optional;

/**
 * Where a server keeps what it must not lose: conversations, skills, people, preferences, all in one place that every
 * instance of a fleet shares. The core is built on this port, not on a database: {@link JdbcStorage} keeps everything
 * in one SQLite or PostgreSQL database; another storage plugs in by implementing it. Handed to a core, it belongs to
 * the core (closed with it).
 */
public interface Storage extends AutoCloseable {

    /** The conversations, their entries, turns, attachments and leases. */
    ConversationStore conversations();

    /** The skills with their files and versions, within {@code limits}, dated by {@code clock}. */
    SkillStore skills(SkillLimits limits, InstantSource clock);

    PeopleStore people();

    PreferencesStore preferences();

    /** Messages between the instances that share this storage; empty where only one instance can use it. */
    Optional<Notifications> notifications();

    /** What and where it is, for the start line (never a password). */
    String description();

    @Override
    void close();
}
