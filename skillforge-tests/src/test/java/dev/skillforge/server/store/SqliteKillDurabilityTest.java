package dev.skillforge.server.store;

import dev.skillforge.testkit.ServerProcess;
import dev.skillforge.server.people.Caller;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * WAL with synchronous=NORMAL survives the death of the process: a writer process is killed with
 * SIGKILL in the middle of writing, and every turn it had seen flushed is there after a restart,
 * in a database that passes its integrity check.
 */
class SqliteKillDurabilityTest {

    @TempDir
    Path dataDir;

    @Test
    void everyTurnFlushedBeforeAKillMinus9IsThereAfterARestart() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"),
                KilledWriterProcess.class.getName(), dataDir.toString())
                .redirectError(dataDir.resolve("child-stderr.log").toFile());
        builder.environment().put("LC_ALL", ServerProcess.LAUNCHER_LOCALE);
        Process child = builder.start();
        int flushed = 0;
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while (flushed < 300 && (line = lines.readLine()) != null) {
                flushed = Integer.parseInt(line.substring("flushed ".length()));
            }
        } finally {
            child.destroyForcibly(); // SIGKILL: no shutdown hook, no close, writes in flight
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(flushed).as("the child's output is in %s", dataDir.resolve("child-stderr.log")).isGreaterThanOrEqualTo(300);

        try (JdbcConversationStore restarted = JdbcConversationStore.open(null, null, null, dataDir)) {
            for (int n = 0; n < flushed; n++) {
                String id = "c-" + n;
                List<Write> expected = KilledWriterProcess.turnWrites(id);
                assertThat(restarted.conversation(id)).as(id).isPresent();
                assertThat(restarted.entries(id)).as(id).hasSize(3);
                assertThat(restarted.turns(id)).as(id).containsExactly(((Write.PutTurn) expected.getLast()).turn());
            }
            assertThat(restarted.count(Caller.LOCAL_ID)).isGreaterThanOrEqualTo(flushed);
            try (Connection connection = restarted.database().connection();
                 Statement statement = connection.createStatement();
                 ResultSet check = statement.executeQuery("PRAGMA integrity_check")) {
                check.next();
                assertThat(check.getString(1)).isEqualTo("ok");
            }
        }
    }
}
