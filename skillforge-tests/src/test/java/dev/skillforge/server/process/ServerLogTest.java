package dev.skillforge.server.process;

import dev.skillforge.testkit.ServerProcess;
import dev.skillforge.testkit.SseClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** What the console shows of a server's life: its start and its stop, not a line per model call. */
class ServerLogTest {

    @Test
    void sigtermIsLoggedAndModelCallsDoNotFloodTheConsoleUnlessAskedTo(@TempDir Path data) throws Exception {
        ServerProcess quiet = ServerProcess.start("log-quiet", data.resolve("quiet"), Map.of());
        List<SseClient.Event> events = SseClient.postForEvents(quiet.url("/api/agent"), SseClient.userMessage("What skills do I have?"));
        assertThat(events.getLast().type()).isEqualTo("done");
        quiet.stop();
        assertThat(quiet.output()).contains("SkillForge listening on").doesNotContain("[Cache Debug]")
                .contains("Asked to stop (SIGTERM or Ctrl-C)").contains("Stopping: /readyz says so, no new turns start here").containsPattern("Stopped in \\d+ ms");

        ServerProcess debugging = ServerProcess.start("log-cache-debug", data.resolve("debug"), Map.of("FORGE_CACHE_LOG", "debug"));
        SseClient.postForEvents(debugging.url("/api/agent"), SseClient.userMessage("What skills do I have?"));
        debugging.stop();
        assertThat(debugging.output()).contains("[Cache Debug] conversation=");
    }

    @Test
    void theStartSaysInOneLineWhoMayCallWhatMayRunAndWhereTheDataIs(@TempDir Path data) throws Exception {
        ServerProcess server = ServerProcess.start("log-start-line", data, Map.of("FORGE_ALLOW_COMMANDS", "echo,ls"));
        server.stop();

        assertThat(server.output()).doesNotContain("SecuritySettings[").containsOnlyOnce("SkillForge listening on")
                .contains("SkillForge listening on http://127.0.0.1:" + server.port() + " with provider sim (skillforge-sim-1),"
                        + " a simulation: no model, no network; callers: anyone on this machine (a loopback address, no FORGE_API_TOKEN);"
                        + " programs: echo, ls and the skill commands, in bubblewrap without network; data: " + data
                        + " (FORGE_DATA_DIR), conversations in SQLite database " + data.resolve("skillforge.db"));
    }
}
