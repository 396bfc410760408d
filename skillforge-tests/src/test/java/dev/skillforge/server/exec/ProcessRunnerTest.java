package dev.skillforge.server.exec;

import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.server.people.Caller;
import dev.skillforge.core.agent.CommandResult;
import dev.skillforge.core.shell.ShellCommand;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import dev.skillforge.testkit.SandboxFolders;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The process runner on its own: what runs, with what, and how it is stopped. The same tests run in
 * bubblewrap ({@link SandboxedProcessRunnerTest}, the default) and without a sandbox
 * ({@link UnsandboxedProcessRunnerTest}, {@code FORGE_SANDBOX=none}).
 */
abstract class ProcessRunnerTest {

    static final List<String> ALLOWED = List.of("ls", "cat", "echo", "yes", "sleep", "head", "seq", "printenv", "awk");

    @TempDir
    Path base;
    Workspaces workspaces;
    Workspace workspace;
    CommandStats stats;

    @BeforeEach
    void setUp() {
        workspaces = SandboxFolders.workspaces(base, WorkspaceQuota.DEFAULT);
        workspace = workspaces.open(Caller.LOCAL_ID, "test");
        stats = new CommandStats();
    }

    @AfterEach
    void nothingIsLeftRunning() throws InterruptedException {
        assertNoChildProcesses();
    }

    static void assertNoChildProcesses() throws InterruptedException {
        // A wait for the processes to go, generous for a slow machine: one left behind (a sleep 30) outlives it.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (ProcessHandle.current().descendants().anyMatch(ProcessHandle::isAlive) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).map(p -> p.pid() + " " + p.info().commandLine().orElse("?")))
                .as("processes left running").isEmpty();
    }

    /** The sandbox the programs of {@code policy} run in. */
    abstract SandboxSettings.Kind sandbox();

    ProcessRunner runner(Duration timeout, long outputBytes, int maxConcurrent) {
        CommandPolicy policy = CommandPolicy.resolve(ALLOWED, Map.of());
        return new ProcessRunner(policy, Sandbox.forPrograms(SandboxSettings.DEFAULT.with(sandbox(), false), policy, workspaces),
                new ProcessRunner.Limits(timeout, outputBytes, maxConcurrent), stats);
    }

    ProcessRunner runner() {
        return runner(Duration.ofSeconds(10), 1024 * 1024, 4);
    }

    CommandResult run(ProcessRunner runner, String command) {
        return runner.run(ShellCommand.of(0, 0, command), workspace, new Cancellation());
    }

    @Test
    void anAllowedProgramRunsInTheWorkspaceWithItsArguments() throws IOException {
        Files.writeString(workspace.root().resolve("notes.txt"), "one\ntwo\n");
        assertThat(run(runner(), "echo 'hello  world' \"and more\"")).isEqualTo(CommandResult.ok("hello  world and more\n"));
        assertThat(run(runner(), "ls")).isEqualTo(CommandResult.ok("notes.txt\n"));
        assertThat(run(runner(), "awk '{ print $1 \"!\" }' notes.txt")).isEqualTo(CommandResult.ok("one!\ntwo!\n"));
        assertThat(run(runner(), "head -n 1 notes.txt")).isEqualTo(CommandResult.ok("one\n"));
        assertThat(stats.get(CommandStats.Outcome.SUCCEEDED)).isEqualTo(4);
    }

    @Test
    void aFailingProgramKeepsItsExitCodeAndSaysItToTheModel() {
        CommandResult result = run(runner(), "ls no-such-file");
        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.output()).startsWith("[exit code 2]\n").contains("no-such-file");
        assertThat(stats.get(CommandStats.Outcome.FAILED)).isEqualTo(1);
    }

    @Test
    void theEnvironmentHoldsNothingOfTheServers() {
        CommandResult result = run(runner(), "printenv");
        assertThat(result.exitCode()).isZero();
        List<String> names = Arrays.stream(result.output().split("\n")).map(line -> line.substring(0, line.indexOf('='))).toList();
        assertThat(names).containsExactlyInAnyOrder("PATH", "HOME", "TMPDIR", "PWD", "LANG");
        assertThat(result.output()).contains("PATH=/usr/local/bin:/usr/bin:/bin\n").contains("HOME=" + workspace.root() + "\n");
    }

    @Test
    void stdinIsEmptySoAProgramWaitingForInputEndsAtOnce() {
        long start = System.nanoTime();
        assertThat(run(runner(), "cat")).isEqualTo(CommandResult.ok(""));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
    }

    @Test
    void aCommandThatNeverEndsIsKilledAtTheTimeLimit() throws InterruptedException {
        long start = System.nanoTime();
        CommandResult result = run(runner(Duration.ofSeconds(1), 1024 * 1024, 4), "sleep 30");
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(result.exitCode()).isEqualTo(ProcessRunner.EXIT_TIMEOUT);
        assertThat(result.output()).startsWith("[killed: no result within 1 s");
        assertThat(took).isBetween(Duration.ofMillis(900), Duration.ofMillis(2500));
        assertThat(stats.get(CommandStats.Outcome.TIMED_OUT)).isEqualTo(1);
        assertNoChildProcesses();
    }

    @Test
    void endlessOutputIsCutAtTheByteCapAndTheProgramKilled() {
        long start = System.nanoTime();
        CommandResult result = run(runner(Duration.ofSeconds(10), 64 * 1024, 4), "yes 'a line of output'");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
        assertThat(result.exitCode()).isEqualTo(ProcessRunner.EXIT_OUTPUT_CAP);
        assertThat(result.output()).startsWith("[killed: the output passed 65536 bytes");
        String kept = result.output().substring(result.output().indexOf("\n") + 1);
        assertThat(kept.length()).isEqualTo(64 * 1024);
        assertThat(kept).startsWith("a line of output\n");
        assertThat(stats.get(CommandStats.Outcome.OUTPUT_CAPPED)).isEqualTo(1);
    }

    @Test
    void aGigabytePrinterIsCutAtTheCapToo() {
        long start = System.nanoTime();
        CommandResult result = run(runner(), "seq 1000000000"); // about 9.9 GB of digits
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
        assertThat(result.exitCode()).isEqualTo(ProcessRunner.EXIT_OUTPUT_CAP);
        assertThat(result.output()).startsWith("[killed: the output passed 1048576 bytes").contains("\n1\n2\n3\n");
    }

    @Test
    void aStopKillsTheCommandWithinASecond() throws Exception {
        ProcessRunner runner = runner();
        Cancellation cancellation = new Cancellation();
        CompletableFuture<CommandResult> result = CompletableFuture.supplyAsync(
                () -> runner.run(ShellCommand.of(0, 0, "sleep 30"), workspace, cancellation));
        awaitChildProcess();
        long start = System.nanoTime();
        cancellation.cancel("stop");
        CommandResult stopped = result.get(5, TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
        assertThat(stopped.exitCode()).isEqualTo(ProcessRunner.EXIT_STOPPED);
        assertThat(stopped.output()).startsWith("[stopped: the run was stopped");
        assertNoChildProcesses();
    }

    @Test
    void moreCommandsThanTheLimitAreRefusedNotQueued() throws Exception {
        ProcessRunner runner = runner(Duration.ofSeconds(10), 1024 * 1024, 1);
        Cancellation cancellation = new Cancellation();
        CompletableFuture<CommandResult> first = CompletableFuture.supplyAsync(() -> runner.run(ShellCommand.of(0, 0, "sleep 30"), workspace, cancellation));
        awaitChildProcess();
        CommandResult second = run(runner, "echo hi");
        assertThat(second.exitCode()).isEqualTo(ProcessRunner.EXIT_REFUSED);
        assertThat(second.output()).startsWith("not run: 1 commands are already running");
        cancellation.cancel("done");
        assertThat(first.get(5, TimeUnit.SECONDS).exitCode()).isEqualTo(ProcessRunner.EXIT_STOPPED);
        assertThat(run(runner, "echo hi")).isEqualTo(CommandResult.ok("hi\n")); // the slot is back
        assertThat(stats.get(CommandStats.Outcome.BUSY)).isEqualTo(1);
    }

    @Test
    void refusalsAreCountedAndSayWhatIsAllowed() {
        CommandResult result = run(runner(), "rm -rf notes");
        assertThat(result.exitCode()).isEqualTo(ProcessRunner.EXIT_REFUSED);
        assertThat(result.output()).startsWith("not allowed: 'rm'; allowed: ls, cat, echo, yes, sleep, head, seq, printenv")
                .endsWith("Nothing was run.");
        CommandResult syntax = run(runner(), "ls | head");
        assertThat(syntax.output()).startsWith("refused: the command uses '|' (a pipe)").contains("Allowed: ls, cat");
        assertThat(stats.get(CommandStats.Outcome.REFUSED)).isEqualTo(2);
    }

    /** A sleep duration no other test on this machine uses, to find its processes by their arguments. */
    static String marker() {
        return "100." + java.util.concurrent.ThreadLocalRandom.current().nextInt(100_000, 1_000_000);
    }

    /** Every process on the machine whose arguments hold {@code marker}, wherever it was re-parented. */
    static List<String> processesWith(String marker) {
        return ProcessHandle.allProcesses().filter(ProcessHandle::isAlive)
                .filter(p -> p.info().commandLine().orElse("").contains(marker)).map(p -> p.pid() + " " + p.info().commandLine().orElse(""))
                .toList();
    }

    /**
     * Waits for them to go, generously for a slow machine (a marked sleep left behind runs 100 s); a test that bounds
     * the kill checks its time itself.
     */
    static void awaitGone(String marker) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!processesWith(marker).isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(processesWith(marker)).as("processes with " + marker).isEmpty();
    }

    @Test
    void theWholeTreeIsKilledAtTheTimeLimitNotJustTheProgram() throws Exception {
        String marker = marker();
        ProcessRunner runner = runner(Duration.ofSeconds(1), 1024 * 1024, 4);
        CommandResult result = run(runner, "awk 'BEGIN { system(\"sleep " + marker + " & sleep " + marker + " & sleep " + marker + "\") }'");
        assertThat(result.exitCode()).isEqualTo(ProcessRunner.EXIT_TIMEOUT);
        awaitGone(marker);
    }

    @Test
    void aBackgroundProcessLeftBehindByAProgramThatExitedIsKilledToo() throws Exception {
        String marker = marker();
        CommandResult result = run(runner(), "awk 'BEGIN { system(\"sleep " + marker + " & sleep 0.5; echo started\") }'");
        assertThat(result).isEqualTo(CommandResult.ok("started\n"));
        awaitGone(marker); // orphaned when the script ended, but seen while it ran
    }

    @Test
    void aStopKillsTheWholeTree() throws Exception {
        String marker = marker();
        ProcessRunner runner = runner();
        Cancellation cancellation = new Cancellation();
        CompletableFuture<CommandResult> result = CompletableFuture.supplyAsync(() -> runner.run(
                ShellCommand.of(0, 0, "awk 'BEGIN { system(\"sleep " + marker + " & sleep " + marker + "\") }'"), workspace, cancellation));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (processesWith(marker).size() < 2) {
            assertThat(System.nanoTime()).isLessThan(deadline);
            Thread.sleep(10);
        }
        long start = System.nanoTime();
        cancellation.cancel("stop");
        assertThat(result.get(5, TimeUnit.SECONDS).exitCode()).isEqualTo(ProcessRunner.EXIT_STOPPED);
        awaitGone(marker);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
    }

    private static void awaitChildProcess() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (ProcessHandle.current().children().noneMatch(ProcessHandle::isAlive)) {
            assertThat(System.nanoTime()).as("a child process starts").isLessThan(deadline);
            Thread.sleep(10);
        }
    }
}
