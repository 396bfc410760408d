package dev.skillforge.server.process;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import javax.sql.DataSource;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

/** An embedded PostgreSQL server with one database that several server instances (processes, or in-process) share. */
public record SharedPostgres(EmbeddedPostgres server, String name, DataSource database) implements AutoCloseable {

    /** Starts a server (its own durability off: it is not under test) and creates the database {@code name}. */
    public static SharedPostgres start(String name) throws IOException, SQLException {
        return start(name, Map.of());
    }

    /** As {@link #start(String)}, with more settings of the server ({@code max_connections}, …). */
    public static SharedPostgres start(String name, Map<String, String> serverConfig) throws IOException, SQLException {
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                .setServerConfig("fsync", "off")
                .setServerConfig("synchronous_commit", "off")
                .setServerConfig("full_page_writes", "off");
        serverConfig.forEach(builder::setServerConfig);
        EmbeddedPostgres server = builder.start();
        try (Connection connection = server.getPostgresDatabase().getConnection();
             Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        }
        return new SharedPostgres(server, name, server.getDatabase("postgres", name));
    }

    /** Creates another database {@code name} on the same server: the JDBC URL of it. */
    public String newDatabase(String name) throws SQLException {
        try (Connection connection = server.getPostgresDatabase().getConnection();
             Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        }
        return "jdbc:postgresql://localhost:" + server.getPort() + "/" + name;
    }

    /** {@code env} with the settings that point a server process at this database. */
    Map<String, String> settings(Map<String, String> env) {
        Map<String, String> settings = new HashMap<>(env);
        settings.put("FORGE_DB_URL", jdbcUrl());
        settings.put("FORGE_DB_USER", "postgres");
        return settings;
    }

    /** The database's JDBC URL, as {@code FORGE_DB_URL} names it. */
    public String jdbcUrl() {
        return "jdbc:postgresql://localhost:" + server.getPort() + "/" + name;
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
