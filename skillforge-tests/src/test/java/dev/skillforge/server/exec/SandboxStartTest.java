package dev.skillforge.server.exec;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.server.json.Json;
import dev.skillforge.testkit.ServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** FORGE_SANDBOX as an operator sets it: the real server process, started from environment variables. */
class SandboxStartTest {

    @TempDir
    Path data;

    static JsonNode commands(ServerProcess server) throws Exception {
        HttpResponse<String> health = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(server.url("/healthz"))).build(),
                HttpResponse.BodyHandlers.ofString());
        return Json.parse(health.body()).path("commands");
    }

    @Test
    void byDefaultAllowedProgramsRunInBubblewrapAndNothingIsWarned() throws Exception {
        try (ServerProcess server = ServerProcess.start("sandbox-default", data, Map.of("FORGE_ALLOW_COMMANDS", "ls"))) {
            assertThat(commands(server).path("sandbox").asText()).isEqualTo("bwrap");
            assertThat(server.output()).contains("in bubblewrap without network").doesNotContain("FORGE_SANDBOX=none");
            server.stop();
        }
    }

    @Test
    void noneIsAWarningAtEveryStart() throws Exception {
        try (ServerProcess server = ServerProcess.start("sandbox-none", data, Map.of("FORGE_ALLOW_COMMANDS", "ls,cat",
                "FORGE_SANDBOX", "none"))) {
            assertThat(commands(server).path("sandbox").asText()).isEqualTo("none");
            assertThat(server.output()).containsPattern("WARN .*FORGE_SANDBOX=none: the model's programs \\(ls,cat\\) run WITHOUT an"
                    + " operating-system sandbox");
            server.stop();
        }
    }

    @Test
    void anUnknownSandboxStopsTheStartBeforeAnythingIsOpened() throws Exception {
        ServerProcess refused = ServerProcess.refusing("sandbox-unknown", data, Map.of("FORGE_ALLOW_COMMANDS", "ls",
                "FORGE_SANDBOX", "docker"));
        assertThat(refused.exitCode()).as(refused.output()).isEqualTo(2);
        assertThat(refused.output()).contains("skillforge: FORGE_SANDBOX=docker is not a sandbox: use bwrap");
        assertThat(data.resolve("skillforge.db")).as("nothing was opened").doesNotExist();
        assertThat(Files.exists(data.resolve("workspace"))).isFalse();
    }
}
