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
        first = new ServerHarness(data.resolve("first"), responder(), JdbcConversationStore.open(postgres.jdbcUrl(), "postgres", null,
                data.resolve("first")), security(), team(issuer.issuer(), freePort()), pricedProviders());
        second = new ServerHarness(data.resolve("second"), responder(), JdbcConversationStore.open(postgres.jdbcUrl(), "postgres", null,
                data.resolve("second")), security(), team(issuer.issuer(), freePort()), pricedProviders());
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
