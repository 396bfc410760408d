package dev.skillforge.server.access;

import dev.skillforge.testkit.ServerHarness;

import java.nio.file.Files;
import java.nio.file.Path;

/** The people contract on one server and its SQLite file. */
class SqlitePeopleIsolationTest extends PeopleIsolationContract {

    private ServerHarness server;

    @Override
    void startInstances() throws Exception {
        Path data = Files.createTempDirectory("people-sqlite");
        server = new ServerHarness(data, responder(), null, security(), team(issuer.issuer(), freePort()), pricedProviders());
    }

    @Override
    void stopInstances() throws Exception {
        if (server != null) {
            server.close();
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
