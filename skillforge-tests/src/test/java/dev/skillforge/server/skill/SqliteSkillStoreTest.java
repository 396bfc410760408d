package dev.skillforge.server.skill;

import dev.skillforge.server.store.Database;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/** The skill store's conformance suite on the embedded SQLite file. */
class SqliteSkillStoreTest extends SkillStoreContract {

    @TempDir
    Path dataDir;

    @Override
    protected Database openDatabase() {
        return Database.open(null, null, null, dataDir);
    }

    @Override
    protected Connection plainConnection() throws SQLException {
        return DriverManager.getConnection("jdbc:sqlite:" + dataDir.resolve(Database.SQLITE_FILE_NAME));
    }
}
