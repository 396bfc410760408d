package dev.skillforge.server.skill;

import dev.skillforge.server.skill.jdbc.JdbcSkillStore;
import dev.skillforge.server.store.Database;

import java.nio.file.Path;
import java.time.InstantSource;

/** A real skill store on a fresh SQLite file in a test's folder, closed with the test. */
final class SqliteSkills implements AutoCloseable {

    final Database database;
    final JdbcSkillStore store;

    SqliteSkills(Path folder, SkillLimits limits, InstantSource clock) {
        this.database = Database.open(null, null, null, folder);
        this.store = new JdbcSkillStore(database, limits, clock);
    }

    SqliteSkills(Path folder) {
        this(folder, SkillLimits.DEFAULT, InstantSource.system());
    }

    static String skillMd(String name, String description, String body) {
        return "---\nname: " + name + "\ndescription: " + description + "\n---\n" + body;
    }

    @Override
    public void close() {
        database.close();
    }
}
