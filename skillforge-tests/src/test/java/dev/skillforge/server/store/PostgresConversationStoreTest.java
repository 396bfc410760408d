package dev.skillforge.server.store;

import dev.skillforge.server.store.Write.CreateConversation;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The conformance suite on a real PostgreSQL server on loopback, started by this class (once: a
 * start costs seconds) with a fresh database per test, plus what only PostgreSQL does.
 */
class PostgresConversationStoreTest extends ConversationStoreContract {

    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static EmbeddedPostgres server;

    private String url;

    @BeforeAll
    static void startServer() throws IOException {
        // Durability of the test server itself is not under test: no fsync keeps 2 cores quick.
        server = EmbeddedPostgres.builder()
                .setServerConfig("fsync", "off")
                .setServerConfig("synchronous_commit", "off")
                .setServerConfig("full_page_writes", "off")
                .start();
    }

    @AfterAll
    static void stopServer() throws IOException {
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void createDatabase() throws SQLException {
        String name = createEmptyDatabase();
        url = "jdbc:postgresql://localhost:" + server.getPort() + "/" + name;
    }

    private static String createEmptyDatabase() throws SQLException {
        String name = "store_test_" + DATABASES.incrementAndGet();
        try (Connection connection = server.getPostgresDatabase().getConnection();
             Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        }
        return name;
    }

    @Override
    protected ConversationStore openStore() {
        return JdbcConversationStore.open(url, "postgres", null, null);
    }

    @Override
    protected Address address() {
        return new Address(url, "postgres", Dialect.POSTGRESQL.migrations());
    }

    @Test
    void knowsItsDialectAndDescribesItselfByHostAndDatabase() {
        JdbcConversationStore store = (JdbcConversationStore) store();

        assertThat(store.database().dialect()).isEqualTo(Dialect.POSTGRESQL);
        assertThat(store.database().description())
                .isEqualTo("PostgreSQL database 'store_test_" + DATABASES.get() + "' at localhost:" + server.getPort());
    }

    @Test
    void anUnreachableServerFailsNamingHostAndDatabaseButNeverThePassword() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort(); // free once closed: nothing listens there
        }
        String secret = "s3cret-Passw0rd";

        for (String unreachable : List.of(
                "jdbc:postgresql://127.0.0.1:" + closedPort + "/skillforge_prod",
                "jdbc:postgresql://127.0.0.1:" + closedPort + "/skillforge_prod?user=forge&password=" + secret)) {
            assertThatThrownBy(() -> Database.open(unreachable, "forge", secret, null))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("127.0.0.1:" + closedPort)
                    .hasMessageContaining("skillforge_prod")
                    .hasMessageNotContaining(secret)
                    .satisfies(e -> assertThat(stackTrace(e)).doesNotContain(secret));
        }
    }

    @Test
    void twoInstancesStartingTogetherOnANewDatabaseBothMigrateIt() throws Exception {
        String sharedUrl = "jdbc:postgresql://localhost:" + server.getPort() + "/" + createEmptyDatabase();
        List<JdbcConversationStore> stores = new ArrayList<>();
        try (ExecutorService threads = Executors.newFixedThreadPool(2)) {
            List<Future<JdbcConversationStore>> starting = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                starting.add(threads.submit(() -> JdbcConversationStore.open(sharedUrl, "postgres", null, null)));
            }
            for (Future<JdbcConversationStore> store : starting) {
                stores.add(store.get(60, TimeUnit.SECONDS));
            }
            stores.getFirst().apply(List.of(new CreateConversation(conversation("c-1", 100))));
            assertThat(stores.getLast().conversation("c-1")).isPresent();
        } finally {
            stores.forEach(JdbcConversationStore::close);
        }
    }

    private static String stackTrace(Throwable e) {
        StringWriter text = new StringWriter();
        e.printStackTrace(new PrintWriter(text));
        return text.toString();
    }
}
