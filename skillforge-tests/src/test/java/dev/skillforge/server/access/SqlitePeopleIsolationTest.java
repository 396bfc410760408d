package dev.skillforge.server.access;

import dev.skillforge.server.json.Json;
import dev.skillforge.server.people.Caller;
import dev.skillforge.testkit.ServerHarness;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The people contract on one server and its SQLite file; and what a server of one person owned becomes its first
 * admin's when it turns into a team server.
 */
class SqlitePeopleIsolationTest extends PeopleIsolationContract {

    private ServerHarness server;

    @Override
    void startInstances() throws Exception {
        Path data = Files.createTempDirectory("people-sqlite");
        server = ServerHarness.builder(data, responder()).security(security()).team(team(issuer.issuer(), freePort()))
                .providers(pricedProviders()).start();
    }

    @Override
    void stopInstances() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void whatTheOnePersonOwnedBecomesTheFirstAdminsAndNoOneElses() throws Exception {
        Path data = Files.createTempDirectory("people-claim");
        String conversation;
        try (ServerHarness alone = new ServerHarness(data, responder())) {
            conversation = alone.conversations.create(Caller.LOCAL, "before there were people").id();
            alone.skills.save("cold-brew", "---\nname: cold-brew\ndescription: Make cold brew.\n---\n# Cold brew\n");
            alone.writer.flush(java.time.Duration.ofSeconds(5));
        }
        try (ServerHarness team = ServerHarness.builder(data, responder()).security(security()).team(team(issuer.issuer(), freePort()))
                .providers(pricedProviders()).start()) {
            Person carol = person("carol", team, Map.of("email", "carol@example.org", "email_verified", true));
            assertThat(send(carol, "GET", "/api/conversations/" + conversation, null).statusCode()).as("not an admin").isEqualTo(404);
            Person admin = person("dana", team, Map.of("email", "alice@example.org", "email_verified", true));
            assertThat(send(admin, "GET", "/api/conversations/" + conversation, null).statusCode()).isEqualTo(200);
            assertThat(Json.parse(send(admin, "GET", "/api/skills", null).body()).toString()).contains("cold-brew");
            assertThat(Json.parse(send(carol, "GET", "/api/skills", null).body()).toString()).doesNotContain("cold-brew");
            assertThat(send(carol, "GET", "/api/skills/cold-brew", null).statusCode()).isEqualTo(404);
        }
    }

    @Override
    ServerHarness aliceInstance() {
        return server;
    }

    @Override
    ServerHarness bobInstance() {
        return server;
    }
}
