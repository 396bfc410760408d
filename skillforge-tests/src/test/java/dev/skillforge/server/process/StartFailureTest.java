package dev.skillforge.server.process;

import dev.skillforge.testkit.ServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A start that cannot succeed ends the process at once with one line that says what to change and a
 * non-zero code: it never prints a stack trace and then hangs, serving nothing.
 */
class StartFailureTest {

    @TempDir
    Path data;

    @Test
    void aPortInUseEndsTheProcessWithOneClearLine() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            ServerProcess refused = ServerProcess.refusing("port-in-use", data, Map.of(), taken.getLocalPort());

            assertThat(refused.exitCode()).as(refused.output()).isEqualTo(2);
            String port = Integer.toString(taken.getLocalPort());
            assertThat(refused.output()).contains("skillforge: 127.0.0.1:" + port + " is already in use by another program:"
                    + " set FORGE_PORT to another port").doesNotContain("\tat ").doesNotContain("Exception");
        }
    }

    @Test
    void aWrongSettingEndsTheProcessWithOneLineNamingIt() throws Exception {
        ServerProcess refused = ServerProcess.refusing("bad-setting", data, Map.of("FORGE_MAX_ITERATIONS", "lots"));

        assertThat(refused.exitCode()).as(refused.output()).isEqualTo(2);
        assertThat(refused.output()).contains("skillforge: FORGE_MAX_ITERATIONS=lots is not a whole number")
                .doesNotContain("\tat ");
    }
}
