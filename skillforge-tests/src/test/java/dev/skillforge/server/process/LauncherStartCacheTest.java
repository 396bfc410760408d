package dev.skillforge.server.process;

import dev.skillforge.testkit.ServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The launcher's start-up cache: a start that finds none for its jar serves at once, without one, and trains it in
 * the background; the next start runs with it. The first start of a fresh clone so waits for the build only. The
 * training run ({@code skillforge train}: the server on a temporary folder, turns over HTTP) answers every request.
 */
class LauncherStartCacheTest {

    /** The training run at the lowest priority on a busy machine: about 30 s alone, minutes beside other builds. */
    private static final Duration TRAINING_TIMEOUT = Duration.ofMinutes(5);

    @TempDir
    Path installation;
    @TempDir
    Path data;

    @Test
    void aStartWithoutACacheServesAtOnceTrainsOneInTheBackgroundAndTheNextStartRunsWithIt() throws Exception {
        Path launcher = ServerProcess.launcherIn(installation);
        Path cache = installation.toRealPath().resolve("skillforge-server/target/skillforge.aot");
        Map<String, String> env = Map.of("FORGE_DATA_DIR", data.toString());

        try (ServerProcess first = ServerProcess.startByLauncher("start-cache-first", launcher, installation, env)) {
            assertThat(first.output()).contains("starting without the start-up cache; training it in the background");
            assertThat(commandLine(first)).doesNotContain("-XX:AOTCache");
            first.stop();
            long deadline = System.nanoTime() + TRAINING_TIMEOUT.toNanos();
            while (!first.output().contains("the start-up cache is trained") && System.nanoTime() < deadline) {
                assertThat(first.output()).doesNotContain("training the start-up cache failed");
                Thread.sleep(500);
            }
            assertThat(first.output()).as("the training's report after the server stopped").contains("the start-up cache is trained");
        }
        assertThat(cache).isRegularFile();
        // The training run (skillforge train) took every turn: one refused request would have failed it.
        String training = Files.readString(installation.toRealPath().resolve("skillforge-server/target/aot-training.log"));
        assertThat(training).contains("Training run: 154 requests answered");
        assertThat(training.lines().filter(line -> line.contains("Exception") && !line.contains("[warning][aot] Skipping")))
                .as("no exception besides the classes the cache leaves out").isEmpty();

        try (ServerProcess second = ServerProcess.startByLauncher("start-cache-second", launcher, installation, env)) {
            assertThat(commandLine(second)).contains("-XX:AOTCache=" + cache);
            assertThat(second.output()).doesNotContain("start-up cache").doesNotContain("[warning][aot]");
            second.stop();
        }
    }

    /** The server's command line: the launcher's process became the JVM. */
    private static String commandLine(ServerProcess server) throws Exception {
        return new String(Files.readAllBytes(Path.of("/proc", Long.toString(server.pid()), "cmdline")), StandardCharsets.UTF_8)
                .replace('\0', ' ');
    }
}
