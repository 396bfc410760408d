package dev.skillforge.server.process;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import javax.sql.DataSource;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

/** An embedded PostgreSQL server with one database that several server processes share. */
record SharedPostgres(EmbeddedPostgres server, String name, DataSource database) implements AutoCloseable {

    /** Starts a server (its own durability off: it is not under test) and creates the database {@code name}. */
    static SharedPostgres start(String name) throws IOException, SQLException {
        EmbeddedPostgres server = EmbeddedPostgres.builder()
                .setServerConfig("fsync", "off")
                .setServerConfig("synchronous_commit", "off")
                .setServerConfig("full_page_writes", "off")
                .start();
        try (Connection connection = server.getPostgresDatabase().getConnection();
             Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        }
        return new SharedPostgres(server, name, server.getDatabase("postgres", name));
    }

    /** {@code env} with the settings that point a server process at this database. */
    Map<String, String> settings(Map<String, String> env) {
        Map<String, String> settings = new HashMap<>(env);
        settings.put("FORGE_DB_URL", "jdbc:postgresql://localhost:" + server.getPort() + "/" + name);
        settings.put("FORGE_DB_USER", "postgres");
        return settings;
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
