package dev.skillforge.server.process;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code skillforge train}, the training run the launcher makes its start-up cache with: it starts the server on a
 * temporary folder, takes turns over HTTP, stops and succeeds. Were one of its requests refused, the launcher would
 * run without a cache and say so.
 */
class TrainCommandTest {

    @Test
    void theTrainingRunTakesItsTurnsAndEnds() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process train = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), "dev.skillforge.server.Main", "train")
                .redirectErrorStream(true).start();
        String output = new String(train.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

        assertThat(train.waitFor(60, TimeUnit.SECONDS)).as(output).isTrue();
        assertThat(train.exitValue()).as(output).isZero();
        assertThat(output).contains("Training run: 154 requests answered").doesNotContain("Exception");
    }
}
