package dev.skillforge.server.access;

import dev.skillforge.server.process.SharedPostgres;
import dev.skillforge.server.store.JdbcConversationStore;
import dev.skillforge.testkit.ServerHarness;

import java.nio.file.Files;
import java.nio.file.Path;

/** The people contract on two instances sharing one PostgreSQL database: Alice uses one, Bob the other. */
class PostgresPeopleIsolationTest extends PeopleIsolationContract {

    private SharedPostgres postgres;
    private ServerHarness first;
    private ServerHarness second;

    @Override
    void startInstances() throws Exception {
        postgres = SharedPostgres.start("skillforge_people");
        Path data = Files.createTempDirectory("people-postgres");
        first = ServerHarness.builder(data.resolve("first"), responder())
                .store(JdbcConversationStore.open(postgres.jdbcUrl(), "postgres", null, data.resolve("first"))).security(security())
                .team(team(issuer.issuer(), freePort())).providers(pricedProviders()).start();
        second = ServerHarness.builder(data.resolve("second"), responder())
                .store(JdbcConversationStore.open(postgres.jdbcUrl(), "postgres", null, data.resolve("second"))).security(security())
                .team(team(issuer.issuer(), freePort())).providers(pricedProviders()).start();
    }

    @Override
    void stopInstances() throws Exception {
        if (first != null) {
            first.close();
        }
        if (second != null) {
            second.close();
        }
        if (postgres != null) {
            postgres.close();
        }
    }

    @Override
    ServerHarness aliceInstance() {
        return first;
    }

    @Override
    ServerHarness bobInstance() {
        return second;
    }
}
