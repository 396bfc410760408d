package dev.skillforge.server.skill;

import dev.skillforge.server.process.SharedPostgres;
import dev.skillforge.server.store.Database;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The skill store's conformance suite on a real PostgreSQL server on loopback, started once by this class, with a
 * fresh database per test: what several server instances share.
 */
class PostgresSkillStoreTest extends SkillStoreContract {

    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static SharedPostgres server;

    private String url;

    @BeforeAll
    static void startServer() throws IOException, SQLException {
        server = SharedPostgres.start("skills_first");
    }

    @AfterAll
    static void stopServer() throws IOException {
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void createDatabase() throws SQLException {
        url = server.newDatabase("skills_" + DATABASES.incrementAndGet());
    }

    @Override
    protected Database openDatabase() {
        return Database.open(url, "postgres", null, null);
    }

    @Override
    protected Connection plainConnection() throws SQLException {
        return DriverManager.getConnection(url, "postgres", null);
    }
}
