package dev.skillforge.server.mcp;

import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.testkit.SimScript;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Regression: every server left the MCP transport's session sweeper behind as a non-daemon thread, so a JVM
 * whose servers had all stopped never exited (./skillforge bench demo-memory printed its table and hung).
 */
class McpThreadsTest {

    @Test
    void aStoppedServerLeavesNoThreadThatKeepsTheJvmAlive(@TempDir Path data) throws Exception {
        new ServerHarness(data, new SimScript()).close();

        assertThat(Thread.getAllStackTraces().keySet())
                .filteredOn(thread -> thread.isAlive() && thread.getName().startsWith("streamable-http-server-transport"))
                .allMatch(Thread::isDaemon);
    }
}
