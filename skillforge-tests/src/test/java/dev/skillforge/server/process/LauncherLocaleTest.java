package dev.skillforge.server.process;

import dev.skillforge.testkit.ForgeClient;
import dev.skillforge.testkit.ServerProcess;
import dev.skillforge.testkit.ForgeClient.Received;
import dev.skillforge.server.provider.sim.SimProviderServer;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.testkit.SimScript;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The launcher does not depend on the caller's locale: started with no {@code LANG} (nor anything
 * else but its settings), a server still runs a command whose arguments are not ASCII. Without a
 * UTF-8 locale the JVM's file-name encoding ({@code sun.jnu.encoding}) falls back to ASCII, which no
 * {@code -D} option changes, and such an argument was refused.
 */
class LauncherLocaleTest {

    @TempDir
    Path dataDir;

    @Test
    void aServerStartedByTheLauncherWithAnEmptyEnvironmentRunsACommandWithNonAsciiArguments() throws Exception {
        SimScript script = new SimScript(SimReply.of("<shell>echo café ☕ 😀</shell>"), SimReply.of("Echoed."));
        try (SimProviderServer sim = SimProviderServer.startOnLoopback(script)) {
            Map<String, String> env = new HashMap<>(ServerCrashTest.providerEnv(sim));
            env.put("FORGE_ALLOW_COMMANDS", "echo");
            env.put("FORGE_START_CACHE", "0"); // no training run left behind in the background (LauncherStartCacheTest's)
            try (ServerProcess server = ServerProcess.startByLauncher("launcher-locale", dataDir, env)) {
                String id = ForgeClient.create(server);

                List<Received> events = ForgeClient.turn(server, id, "Say café.");

                Received result = events.stream().filter(e -> e.type().equals("tool-result")).findFirst().orElseThrow();
                assertThat(result.event().data().path("exitCode").asInt()).as("%s; server log %s", result.event().data(), server.log())
                        .isZero();
                assertThat(result.text("result")).isEqualTo("café ☕ 😀\n");
                assertThat(events.getLast().text("stopReason")).isEqualTo("complete");
                server.stop();
            }
        }
    }
}
