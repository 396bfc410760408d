package dev.skillforge.server.exec;

import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.agent.CommandResult;
import dev.skillforge.core.shell.ShellCommand;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import dev.skillforge.testkit.SandboxFolders;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * What a program sees in the sandbox, looked at from inside with the argument checks bypassed (so
 * absolute paths reach it), and the start-up check that refuses a sandbox that does not work.
 */
class BubblewrapTest {

    static final List<String> ALLOWED = List.of("ls", "cat", "awk", "dd", "id", "sleep");

    @TempDir
    Path base;
    Workspaces workspaces;
    Workspace workspace;
    CommandPolicy policy;
    ProcessRunner runner;

    @BeforeEach
    void setUp() throws IOException {
        workspaces = SandboxFolders.workspaces(base.resolve("data"), WorkspaceQuota.DEFAULT);
        workspace = workspaces.open("test");
        policy = CommandPolicy.resolve(ALLOWED, Map.of());
        runner = runner(SandboxSettings.DEFAULT);
    }

    ProcessRunner runner(SandboxSettings settings) {
        CommandPolicy programs = CommandPolicy.onSafePath("python3").isPresent()
                ? CommandPolicy.resolve(Stream.concat(ALLOWED.stream(), Stream.of("python3")).toList(), Map.of()) : policy;
        return new ProcessRunner(programs, Sandbox.forPrograms(settings, programs, workspaces),
                new ProcessRunner.Limits(Duration.ofSeconds(10), 1024 * 1024, 2), new CommandStats());
    }

    String inside(String command) throws CommandRefused {
        CommandResult result = SandboxCorpusTest.unchecked(runner, workspace, command);
        assertThat(result.exitCode()).as(command + ": " + result.output()).isZero();
        return result.output();
    }

    static Set<String> lines(String output) {
        return Arrays.stream(output.split("\n")).filter(line -> !line.isEmpty()).collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void theRootHoldsTheSystemViewAndThePathToTheWorkspaceOnly() throws Exception {
        Set<String> expected = new TreeSet<>(Set.of(".", "..", "usr", "etc", "dev", "proc", "tmp"));
        expected.add(workspace.root().getName(0).toString());
        for (String folder : List.of("bin", "sbin", "lib", "lib32", "lib64", "libx32")) {
            if (Files.exists(Path.of("/", folder))) {
                expected.add(folder);
            }
        }
        assertThat(lines(inside("ls -a /"))).isEqualTo(expected); // no /home, /root, /work, /var, /opt, /srv…
        Set<String> etc = new TreeSet<>(Set.of(".", ".."));
        for (String file : List.of("ld.so.cache", "alternatives", "localtime")) {
            if (Files.exists(Path.of("/etc", file))) {
                etc.add(file);
            }
        }
        assertThat(lines(inside("ls -a /etc"))).isEqualTo(etc); // no passwd, shadow, hostname, resolv.conf, ssl…
        assertThat(lines(inside("ls -a " + workspace.root().getParent()))).as("no other workspace")
                .containsExactlyInAnyOrder(".", "..", workspace.root().getFileName().toString());
    }

    @Test
    void theWorkspaceIsWritableAtItsOwnPathAndNothingElseIs() throws Exception {
        inside("dd if=/dev/zero of=" + workspace.root() + "/made-inside bs=1 count=3");
        assertThat(workspace.root().resolve("made-inside")).hasSize(3);
        CommandResult usr = SandboxCorpusTest.unchecked(runner, workspace, "awk 'BEGIN { print 1 > \"/usr/owned\" }'");
        assertThat(usr.exitCode()).isNotZero();
        assertThat(usr.output()).contains("Read-only file system");
        assertThat(Path.of("/usr/owned")).doesNotExist();
    }

    @Test
    void theRootAndDevAreReadOnlySoMemoryCannotBeFilledThere() throws Exception {
        for (String path : List.of("/owned", "/dev/owned")) {
            CommandResult write = SandboxCorpusTest.unchecked(runner, workspace, "dd if=/dev/zero of=" + path + " bs=1 count=1");
            assertThat(write.output()).as(path).contains("Read-only file system");
        }
        CommandResult shm = SandboxCorpusTest.unchecked(runner, workspace, "dd if=/dev/zero of=/dev/shm/big bs=1048576 count=100");
        assertThat(shm.output()).contains("No space left on device");
    }

    @Test
    void tmpIsPrivateAndSmall() throws Exception {
        String name = "skillforge-private-" + UUID.randomUUID();
        inside("awk 'BEGIN { print \"x\" > \"/tmp/" + name + "\" }'");
        assertThat(Path.of("/tmp", name)).as("the host's /tmp").doesNotExist();
        assertThat(inside("ls -a /tmp")).doesNotContain(name); // each command gets a fresh one
        CommandResult big = SandboxCorpusTest.unchecked(runner, workspace, "dd if=/dev/zero of=/tmp/big bs=1048576 count=100");
        assertThat(big.output()).contains("No space left on device");
    }

    @Test
    void itRunsAsNobodyWithoutCapabilitiesAndSeesOnlyItsOwnProcesses() throws Exception {
        assertThat(inside("id")).startsWith("uid=" + Bubblewrap.SANDBOX_ID + " gid=" + Bubblewrap.SANDBOX_ID);
        String status = inside("cat /proc/self/status");
        assertThat(status).containsPattern("CapEff:\\s+0+\n").containsPattern("CapBnd:\\s+0+\n");
        List<Long> pids = lines(inside("ls /proc")).stream().filter(entry -> entry.matches("[0-9]+")).map(Long::parseLong).toList();
        assertThat(pids).as("bwrap's init, the program and its children").isNotEmpty().allSatisfy(pid -> assertThat(pid).isLessThan(10));
        assertThat(inside("cat /proc/1/environ")).as("bwrap's own environment").isEmpty();
    }

    @Test
    void noNetworkUnlessTheOperatorAllowsIt() throws Exception {
        assumeThat(CommandPolicy.onSafePath("python3")).as("python3, to open a socket from inside").isPresent();
        try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            AtomicInteger accepted = new AtomicInteger();
            Thread.ofVirtual().start(() -> {
                while (true) {
                    try (Socket ignored = listener.accept()) {
                        accepted.incrementAndGet();
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            String connect = "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", " + listener.getLocalPort()
                    + "), 2); print(\"connected\")'";
            CommandResult isolated = SandboxCorpusTest.unchecked(runner, workspace, connect);
            assertThat(isolated.output()).as("127.0.0.1 is the sandbox's own loopback, where nothing listens")
                    .contains("Connection refused");
            assertThat(accepted.get()).isZero();
            List<String> interfaces = lines(inside("cat /proc/self/net/dev")).stream().filter(line -> line.contains(":"))
                    .map(line -> line.substring(0, line.indexOf(':')).strip()).toList();
            assertThat(interfaces).as("the sandbox's own network: a loopback of its own, and nothing else").containsExactly("lo");

            ProcessRunner networked = runner(SandboxSettings.DEFAULT.with(SandboxSettings.Kind.BWRAP, true));
            assertThat(SandboxCorpusTest.unchecked(networked, workspace, connect).output()).isEqualTo("connected\n");
            long deadline = System.nanoTime() + Duration.ofSeconds(2).toNanos();
            while (accepted.get() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(10); // the accept loop counts the connection just after the program made it
            }
            assertThat(accepted.get()).isEqualTo(1);
        }
    }

    /**
     * Regression: bwrap's init waits for bwrap to map its user ids before it sets its parent-death
     * signal, so a bwrap killed in that moment left its init waiting forever, holding the command's
     * output pipe (the reader, and the JDK's process reaper with it, blocked for good).
     */
    @Test
    void aStopWhileBubblewrapIsStillSettingUpLeavesNothingBehind() throws Exception {
        String marker = ProcessRunnerTest.marker();
        for (int i = 0; i < 60; i++) {
            Cancellation cancellation = new Cancellation();
            long delayNanos = (i % 12) * 250_000L; // 0 to 2.75 ms after the start: bwrap's set-up
            CompletableFuture<CommandResult> result = CompletableFuture.supplyAsync(
                    () -> runner.run(ShellCommand.of(0, 0, "sleep " + marker), workspace, cancellation));
            while (ProcessHandle.current().descendants().noneMatch(p -> p.info().command().orElse("").endsWith("/bwrap"))
                    && !result.isDone()) {
                Thread.onSpinWait();
            }
            java.util.concurrent.locks.LockSupport.parkNanos(delayNanos);
            cancellation.cancel("stop");
            assertThat(result.get(5, TimeUnit.SECONDS).exitCode()).isIn(ProcessRunner.EXIT_STOPPED, 0);
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(2).toNanos();
        while (!leftovers().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(leftovers()).as("processes of the workspace's sandboxes").isEmpty();
        assertThat(ProcessRunnerTest.processesWith(marker)).isEmpty();
    }

    /** Every process whose command line names this test's workspace: bwrap and its init carry it. */
    List<String> leftovers() {
        return ProcessHandle.allProcesses().filter(ProcessRunner.ProcessTree::running)
                .map(p -> p.pid() + " " + p.info().commandLine().orElse("")).filter(line -> line.contains(workspace.root().toString()))
                .toList();
    }

    @Test
    void aMissingBubblewrapStopsTheStartWithWhatToDo() {
        assertThatThrownBy(() -> Bubblewrap.probed(base.resolve("no-such/bwrap"), workspaces, false, policy))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("FORGE_ALLOW_COMMANDS allows programs (ls,cat,awk,dd,id,sleep)")
                .hasMessageContaining("bubblewrap is not installed")
                .hasMessageContaining("apt-get install bubblewrap")
                .hasMessageContaining("FORGE_SANDBOX=none");
    }

    @Test
    void aBubblewrapThatCannotMakeNamespacesStopsTheStartQuotingIt() throws IOException {
        Path fake = base.resolve("bwrap");
        Files.writeString(fake, "#!/bin/sh\necho 'bwrap: No permissions to create new namespace, likely because the kernel does not"
                + " allow non-privileged user namespaces.' >&2\nexit 1\n");
        Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertThatThrownBy(() -> Bubblewrap.probed(fake, workspaces, false, policy))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bubblewrap does not work here (" + fake + " exited with 1: bwrap: No permissions to create new namespace")
                .hasMessageContaining("user namespaces")
                .hasMessageContaining("FORGE_SANDBOX=none");
    }

    @Test
    void withOnlyTheSkillCommandsNothingIsProbed() {
        assertThat(Sandbox.forPrograms(SandboxSettings.DEFAULT, CommandPolicy.none(), workspaces)).isInstanceOf(NoSandbox.class);
    }

    @Test
    void theSettingsAreReadAndCheckedByName() {
        assertThat(SandboxSettings.kind(null)).isEqualTo(SandboxSettings.Kind.BWRAP);
        assertThat(SandboxSettings.kind("bwrap")).isEqualTo(SandboxSettings.Kind.BWRAP);
        assertThat(SandboxSettings.kind(" None ")).isEqualTo(SandboxSettings.Kind.NONE);
        assertThatThrownBy(() -> SandboxSettings.kind("docker")).hasMessage("FORGE_SANDBOX=docker is not a sandbox: use bwrap (the"
                + " default: programs run in bubblewrap) or none (no sandbox)");
        assertThat(dev.skillforge.server.config.SecuritySettings.from(Map.of("FORGE_SANDBOX_NETWORK", "1")).sandbox())
                .isEqualTo(SandboxSettings.DEFAULT.with(SandboxSettings.Kind.BWRAP, true));
        assertThatThrownBy(() -> dev.skillforge.server.config.SecuritySettings.from(Map.of("FORGE_SANDBOX_NETWORK", "yes")))
                .hasMessageContaining("FORGE_SANDBOX_NETWORK=yes");
    }
}
