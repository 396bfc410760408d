package dev.skillforge.server.exec;

import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.server.people.Caller;
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
        workspace = workspaces.open(Caller.LOCAL_ID, "test");
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
        assertThat(status).containsPattern("CapInh:\\s+0+\n").containsPattern("CapPrm:\\s+0+\n").containsPattern("CapEff:\\s+0+\n")
                .containsPattern("CapBnd:\\s+0+\n").containsPattern("CapAmb:\\s+0+\n").containsPattern("NoNewPrivs:\\s+1\n");
        List<Long> pids = lines(inside("ls /proc")).stream().filter(entry -> entry.matches("[0-9]+")).map(Long::parseLong).toList();
        assertThat(pids).as("bwrap's init, the program and its children").isNotEmpty().allSatisfy(pid -> assertThat(pid).isLessThan(10));
        assertThat(inside("cat /proc/1/environ")).as("bwrap's own environment").isEmpty();
    }

    /** {@code python3 -c} running {@code script} (any lines, no single quote), as one command line. */
    static String python(String script) {
        assertThat(script).doesNotContain("'");
        String escaped = script.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
        return "python3 -c 'exec(\"" + escaped + "\")'";
    }

    /** Defines {@code attempt(f)}: "done", or the name of the errno f failed with. */
    static final String ATTEMPT = """
            import os, errno, ctypes
            def attempt(what):
                try:
                    what()
                    return "done"
                except OSError as e:
                    return errno.errorcode[e.errno]
            """;

    /**
     * Regression: a server run as root ran its programs as host root (the user namespace mapped the sandbox's
     * uid to it), so an interpreter wrote kernel settings under /proc/sys, opened core_pattern for writing and
     * changed the mode of the host's /dev/null.
     */
    @Test
    void theProgramIsNeverHostRootAndOwnsNoKernelSettingOrDevice() throws Exception {
        assumeThat(CommandPolicy.onSafePath("python3")).as("python3, an interpreter allowed").isPresent();
        String said = inside(python(ATTEMPT + """
                setting = "/proc/sys/vm/overcommit_ratio"
                value = open(setting).read()
                def write_back():
                    with open(setting, "w") as f:
                        f.write(value)
                print("setting", attempt(write_back))
                print("core_pattern", attempt(lambda: os.close(os.open("/proc/sys/kernel/core_pattern", os.O_WRONLY))))
                print("devnull", attempt(lambda: os.chmod("/dev/null", 0o666)))
                print("sysrq", attempt(lambda: os.close(os.open("/proc/sysrq-trigger", os.O_WRONLY))))
                open("made", "w").close()
                """));
        assertThat(lines(said)).as(said).allSatisfy(line -> assertThat(line).doesNotEndWith(" done"))
                .anySatisfy(line -> assertThat(line).matches("setting (EROFS|EACCES|EPERM)"))
                .anySatisfy(line -> assertThat(line).matches("core_pattern (EROFS|EACCES|EPERM)"))
                .anySatisfy(line -> assertThat(line).isEqualTo("devnull EPERM"));
        int owner = (Integer) Files.getAttribute(workspace.root().resolve("made"), "unix:uid");
        assertThat(owner).as("the host user of what the program made").isEqualTo(workspaces.user().uid()).isNotZero();
        if (SandboxUser.effectiveUid() == 0) {
            assertThat(owner).as("a root server drops its programs to nobody").isEqualTo(SandboxUser.NOBODY);
        }
    }

    /** Regression: a command set the set-uid bit of a copied interpreter, which another local account then ran. */
    @Test
    void noFileAProgramWritesCanCarrySetIdBits() throws Exception {
        assumeThat(CommandPolicy.onSafePath("python3")).as("python3, an interpreter allowed").isPresent();
        String said = inside(python(ATTEMPT + """
                open("plain", "w").close()
                print("chmod", attempt(lambda: os.chmod("plain", 0o4755)))
                print("chmod-g", attempt(lambda: os.chmod("plain", 0o2755)))
                fd = os.open("plain", os.O_RDONLY)
                print("fchmod", attempt(lambda: os.fchmod(fd, 0o6755)))
                print("create", attempt(lambda: os.close(os.open("created", os.O_CREAT | os.O_WRONLY, 0o4755))))
                print("mode", attempt(lambda: os.chmod("plain", 0o755)))
                """));
        assertThat(lines(said)).containsExactlyInAnyOrder("chmod EPERM", "chmod-g EPERM", "fchmod EPERM", "create EPERM", "mode done");
        try (Stream<Path> files = Files.walk(workspace.root())) {
            assertThat(files.filter(file -> ((Integer) uncheckedMode(file) & 06000) != 0)).as("set-id files").isEmpty();
        }
    }

    static Object uncheckedMode(Path file) {
        try {
            return Files.getAttribute(file, "unix:mode", java.nio.file.LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The seccomp filter is loaded, and refuses in the kernel what SeccompFilter says (x86_64 numbers). */
    @Test
    void theSeccompFilterRefusesWhatAConfinedCommandNeverNeeds() throws Exception {
        assumeThat(CommandPolicy.onSafePath("python3")).as("python3, to make system calls").isPresent();
        assumeThat(System.getProperty("os.arch")).isEqualTo("amd64");
        String said = inside(python("""
                import ctypes, errno
                libc = ctypes.CDLL(None, use_errno=True)
                def call(name, nr, *args):
                    result = libc.syscall(nr, *args)
                    print(name, "ok" if result >= 0 else errno.errorcode[ctypes.get_errno()])
                call("ptrace", 101, 0, 0, 0, 0)
                call("personality", 135, 0x0040000)
                call("io_uring_setup", 425, 1, 0)
                call("socket_alg", 41, 38, 5, 0)
                call("unshare", 272, 0x20000)
                call("keyctl", 250, 0, 0, 0, 0, 0)
                call("bpf", 321, 0, 0, 0)
                call("clone3", 435, 0, 0)
                call("mount", 165, 0, 0, 0, 0, 0)
                call("perf_event_open", 298, 0, 0, -1, -1, 0)
                call("getpid", 39)
                print("status", [line.split()[1] for line in open("/proc/self/status") if line.startswith("Seccomp:")][0])
                """));
        assertThat(lines(said)).containsExactlyInAnyOrder("ptrace EPERM", "personality EPERM", "io_uring_setup EPERM",
                "socket_alg EAFNOSUPPORT", "unshare EPERM", "keyctl EPERM", "bpf EPERM", "clone3 ENOSYS", "mount EPERM",
                "perf_event_open EPERM", "getpid ok", "status 2");
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
