package dev.skillforge.server.exec;

import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.server.people.Caller;
import dev.skillforge.core.agent.CommandResult;
import dev.skillforge.core.shell.ShellCommand;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import dev.skillforge.testkit.SandboxFolders;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sandbox's hostile-command corpus: what the tester did with dangerous programs allowed
 * ({@code dd}, {@code sed}, {@code awk}, {@code find}, {@code tar}, {@code git}, {@code cp},
 * {@code python3}, {@code cat}…, no {@code FORGE_ALLOW_ARGS_*} patterns), and what the sandbox
 * leaves of it. Every attack runs three times:
 * <ol>
 *   <li>as the server runs it: the argument checks, then bubblewrap;</li>
 *   <li>with the argument checks bypassed, in bubblewrap: the sandbox alone must hold;</li>
 *   <li>with the argument checks bypassed and no sandbox ({@code FORGE_SANDBOX=none}): the attack
 *       must work there (else it would prove nothing), and is undone.</li>
 * </ol>
 * Held means: the secrets outside the workspace (a planted file, the server's
 * {@code /proc/PID/environ}, {@code /etc/shadow}, the data folder's database) never appear, no file
 * outside the workspace is created or changed (canaries in the test's folder, in the data folder and
 * in {@code /tmp}; every file under the test's folder compared before and after), no process
 * outlives the command, and a loopback listener gets no connection.
 *
 * <p>The results table is written to {@code target/security/sandbox-corpus.md} (SECURITY.md quotes it).
 */
class SandboxCorpusTest {

    static final String SECRET = "OUTSIDE-SECRET-" + UUID.randomUUID();
    static final String DB_SECRET = "DATABASE-SECRET-" + UUID.randomUUID();
    static final String TOOL = "#!/bin/sh\necho original tool\n";

    @TempDir
    static Path root;
    static Path data;
    static Path outside;
    static Path tmpCanary;
    static byte[] evilTar;
    static Workspaces workspaces;
    static Workspace workspace;
    static CommandPolicy policy;
    static ProcessRunner sandboxed;
    static ProcessRunner unsandboxed;
    static ServerSocket listener;
    static final AtomicInteger connections = new AtomicInteger();
    static final List<String> table = new ArrayList<>();
    static final AtomicInteger escapedWithoutSandbox = new AtomicInteger();
    static final AtomicInteger refusedByTheChecks = new AtomicInteger();

    /** What an attack would do outside the workspace, and how to see whether it did. */
    interface Escape {
        /** Called before each run (a baseline). */
        default void before() {
        }

        /** What escaped in this run, or {@code null} when nothing did. */
        String seen(CommandResult result) throws Exception;

        /** Puts things back after the run without a sandbox. */
        default void undo() throws Exception {
        }
    }

    /**
     * One attack.
     *
     * @param provable whether the attack must work without a sandbox here (a process that detaches may be
     *                 caught by the unsandboxed runner's 50 ms poll; /etc/shadow is readable only by root)
     */
    record Case(String kind, String attack, String command, Escape escape, boolean provable) {
    }

    @BeforeAll
    static void plant() throws Exception {
        data = root.resolve("data");
        outside = Files.createDirectories(root.resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), SECRET + "\n");
        Path tool = outside.resolve("tool.sh");
        Files.writeString(tool, TOOL);
        Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.createDirectories(data.resolve("skills/demo"));
        Files.writeString(data.resolve("skills/demo/SKILL.md"), "---\nname: demo\ndescription: A demo.\n---\n");
        Files.writeString(data.resolve("skillforge.db"), "SQLite format 3\0" + DB_SECRET);
        workspaces = SandboxFolders.workspaces(data, WorkspaceQuota.DEFAULT);
        workspace = workspaces.open(Caller.LOCAL_ID, "corpus");
        Path member = outside.resolve("canary-tar");
        Files.writeString(member, "owned\n");
        Path archive = root.resolve("evil.tar");
        host("tar", "-cPf", archive.toString(), member.toString());
        evilTar = Files.readAllBytes(archive);
        Files.delete(archive);
        Files.delete(member);
        tmpCanary = Path.of("/tmp", "skillforge-canary-" + UUID.randomUUID());
        if (CommandPolicy.onSafePath("git").isPresent()) {
            Path repo = Files.createDirectories(outside.resolve("repo"));
            Files.writeString(repo.resolve("secret.txt"), SECRET + "\n");
            host("git", "init", "-q", repo.toString());
            host("git", "-C", repo.toString(), "add", "secret.txt");
            host("git", "-C", repo.toString(), "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "secret");
        }
        listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(() -> {
            while (!listener.isClosed()) {
                try (Socket ignored = listener.accept()) {
                    connections.incrementAndGet();
                } catch (IOException e) {
                    return;
                }
            }
        });

        List<String> names = new ArrayList<>(List.of("dd", "sed", "awk", "find", "tar", "git", "cp", "cat", "ls", "sleep", "printenv"));
        names.removeIf(name -> CommandPolicy.onSafePath(name).isEmpty());
        CommandPolicy.onSafePath("python3").ifPresent(found -> names.add("python3"));
        policy = CommandPolicy.resolve(names, Map.of());
        ProcessRunner.Limits limits = new ProcessRunner.Limits(Duration.ofSeconds(5), 1024 * 1024, 2);
        sandboxed = new ProcessRunner(policy, Sandbox.forPrograms(SandboxSettings.DEFAULT, policy, workspaces), limits, new CommandStats());
        // What the attacks did before: programs run as the server's own user, root included.
        int server = SandboxUser.effectiveUid();
        unsandboxed = new ProcessRunner(policy, new NoSandbox(new SandboxUser(false, server, server)), limits, new CommandStats());
        table.add("| # | attack | command | before: no sandbox (checks bypassed) | now: argument check | now: bwrap (checks bypassed) |");
        table.add("|---|---|---|---|---|---|");
    }

    @AfterAll
    static void report() throws Exception {
        if (listener != null) {
            listener.close();
        }
        Files.deleteIfExists(tmpCanary);
        Path report = Path.of("target", "security", "sandbox-corpus.md");
        Files.createDirectories(report.getParent());
        int attacks = table.size() - 2;
        String summary = "Result: **" + attacks + " attacks; without a sandbox " + escapedWithoutSandbox + " escaped, in bwrap none did**,"
                + " with or without the argument checks (which refuse " + refusedByTheChecks + " of them).";
        Files.writeString(report, String.join("\n", table).replace(root.toString(), "/tmp/T")
                .replace(tmpCanary.toString(), "/tmp/skillforge-canary-…") + "\n\n" + summary + "\n");
    }

    static List<Case> corpus() throws IOException {
        String out = outside.toString();
        String secret = out + "/secret.txt";
        long serverPid = ProcessHandle.current().pid();
        List<Case> cases = new ArrayList<>(List.of(
                new Case("read", "a file outside, through dd's if=", "dd if=" + secret, reads(SECRET), true),
                new Case("read", "the server's environment (its keys)", "dd if=/proc/" + serverPid + "/environ", reads(serverEnvironment()), true),
                new Case("read", "/etc/shadow", "cat /etc/shadow", reads("root:"), Files.isReadable(Path.of("/etc/shadow"))),
                new Case("read", "the data folder's database", "cp ../../../skillforge.db stolen.db", copies("stolen.db", DB_SECRET), true),
                new Case("read", "a file named in sed's script (r)", "sed 'r " + secret + "' notes.txt", reads(SECRET), true),
                new Case("read", "a file named in awk's script (getline <)",
                        "awk 'BEGIN { while ((getline line < \"" + secret + "\") > 0) print line }'", reads(SECRET), true),
                new Case("read", "tar -P of a file outside, to stdout", "tar -cPf - " + secret, reads(SECRET), true),
                new Case("read", "find walking outside", "find " + out + " -name secret.txt", reads(secret), true),
                new Case("write", "dd overwriting an executable outside", "dd if=notes.txt of=" + out + "/tool.sh conv=notrunc",
                        changes(outside.resolve("tool.sh"), TOOL), true),
                new Case("write", "dd poisoning a skill past the skill commands", "dd if=notes.txt of=../../../skills/demo/SKILL.md",
                        changes(data.resolve("skills/demo/SKILL.md"), "---\nname: demo\ndescription: A demo.\n---\n"), true),
                new Case("write", "cp into /tmp", "cp notes.txt " + tmpCanary, creates(tmpCanary), true),
                new Case("write", "cp into the data folder", "cp notes.txt ../../../canary-cp", creates(data.resolve("canary-cp")), true),
                new Case("write", "sed's w", "sed -n 'w " + out + "/canary-sed' notes.txt", creates(outside.resolve("canary-sed")), true),
                new Case("write", "awk's print >", "awk 'BEGIN { print \"owned\" > \"" + out + "/canary-awk\" }'",
                        creates(outside.resolve("canary-awk")), true),
                new Case("write", "tar -xP of an archive holding an absolute path", "tar -xPf evil.tar", creates(outside.resolve("canary-tar")), true),
                new Case("write", "find's -fprint", "find . -maxdepth 0 -fprint " + out + "/canary-find", creates(outside.resolve("canary-find")), true),
                new Case("process", "setsid through awk's system()", "awk 'BEGIN { system(\"setsid -f sleep " + marker("1") + "\") }'",
                        survives(marker("1")), false),
                new Case("process", "setsid through find -exec", "find . -maxdepth 0 -exec setsid -f sleep " + marker("2") + " ';'",
                        survives(marker("2")), false)));
        if (policy.programs().containsKey("git")) {
            cases.add(new Case("read", "git clone file:// of a repository outside", "git clone -q file://" + out + "/repo stolen",
                    copies("stolen/secret.txt", SECRET), true));
            cases.add(new Case("write", "git init outside", "git init -q " + out + "/canary-git", creates(outside.resolve("canary-git")), true));
            cases.add(new Case("network", "git clone over http from loopback",
                    "git clone -q http://127.0.0.1:" + listener.getLocalPort() + "/repo.git net-clone", connects(), true));
        }
        if (policy.programs().containsKey("python3")) {
            cases.add(new Case("read", "python3 open()", "python3 -c 'print(open(\"" + secret + "\").read())'", reads(SECRET), true));
            cases.add(new Case("write", "python3 open(…, \"w\")", "python3 -c 'open(\"" + out + "/canary-py\", \"w\").write(\"owned\")'",
                    creates(outside.resolve("canary-py")), true));
            cases.add(new Case("process", "double fork and setsid in python3",
                    "python3 -c 'import os; os.fork() or (os.setsid(), os.fork() or os.execv(\"/usr/bin/sleep\", [\"sleep\", \""
                            + marker("3") + "\"]))'", survives(marker("3")), false));
            cases.add(new Case("network", "python3 connecting to loopback",
                    "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", " + listener.getLocalPort() + "), 2)'",
                    connects(), true));
        }
        return cases;
    }

    @TestFactory
    Stream<DynamicTest> nothingLeavesTheSandboxEvenPastTheArgumentChecks() throws IOException {
        List<Case> corpus = corpus();
        assertThat(corpus).hasSizeGreaterThanOrEqualTo(18);
        return corpus.stream().map(c -> DynamicTest.dynamicTest(c.kind() + ": " + c.attack(), () -> run(c)));
    }

    void run(Case c) throws Exception {
        // As the server runs it: the argument checks, then the sandbox.
        resetWorkspace();
        Map<String, String> files = filesOutsideTheWorkspace();
        c.escape().before();
        CommandResult checked = sandboxed.run(ShellCommand.of(0, 0, c.command()), workspace, new Cancellation());
        assertThat(c.escape().seen(checked)).as("as the server runs it: " + checked.output()).isNull();
        assertThat(filesOutsideTheWorkspace()).as("files outside the workspace").isEqualTo(files);

        // The checks bypassed: the sandbox alone.
        resetWorkspace();
        c.escape().before();
        CommandResult confined = unchecked(sandboxed, workspace, c.command());
        assertThat(c.escape().seen(confined)).as("in bwrap: " + confined.output()).isNull();
        assertThat(filesOutsideTheWorkspace()).as("files outside the workspace").isEqualTo(files);
        assertThat(tmpCanary).doesNotExist();

        // The checks bypassed and no sandbox: the attack is real.
        resetWorkspace();
        c.escape().before();
        CommandResult bare = unchecked(unsandboxed, workspace, c.command());
        String escaped = c.escape().seen(bare);
        c.escape().undo();
        if (c.provable()) {
            assertThat(escaped).as("without a sandbox the attack works: " + bare.output()).isNotNull();
        }
        assertThat(filesOutsideTheWorkspace()).as("undone").isEqualTo(files);

        String check = checked.exitCode() == ProcessRunner.EXIT_REFUSED ? "refused" : "passes";
        if (escaped != null) {
            escapedWithoutSandbox.incrementAndGet();
        }
        if (checked.exitCode() == ProcessRunner.EXIT_REFUSED) {
            refusedByTheChecks.incrementAndGet();
        }
        table.add("| " + (table.size() - 1) + " | " + c.attack() + " | " + HostileCommandCorpusTest.code(c.command()) + " | "
                + (escaped == null ? "held (" + outcome(bare) + ")" : "**" + escaped + "**") + " | " + check + " | held: " + outcome(confined)
                + " |");
    }

    /** The exit code and the program's first line of output (a Python traceback's last), without the runner's note. */
    static String outcome(CommandResult result) {
        String output = result.output().startsWith("[exit code ") ? result.output().substring(result.output().indexOf(']') + 1) : result.output();
        if (output.strip().startsWith("Traceback")) {
            output = output.strip().substring(output.strip().lastIndexOf('\n') + 1);
        }
        String line = HostileCommandCorpusTest.firstLine(output);
        return "exit " + result.exitCode() + (line.equals("(no output)") ? "" : ", " + line);
    }

    /** Runs a command past the argument checks: only the allow-list of program names applies. */
    static CommandResult unchecked(ProcessRunner runner, Workspace workspace, String command) throws CommandRefused {
        List<String> argv = CommandLine.split(command);
        return runner.execute(ShellCommand.of(0, 0, command), runner.policy().check(argv), argv, workspace, new Cancellation());
    }

    // --- what escaping looks like ---

    static Escape reads(String secret) {
        return result -> result.output().contains(secret) ? "read it" : null;
    }

    /** A secret copied into the workspace. */
    static Escape copies(String copy, String secret) {
        return result -> {
            Path file = workspace.root().resolve(copy);
            return Files.isRegularFile(file) && Files.readString(file, StandardCharsets.ISO_8859_1).contains(secret)
                    ? "copied it into the workspace" : null;
        };
    }

    static Escape creates(Path canary) {
        return new Escape() {
            @Override
            public String seen(CommandResult result) {
                return Files.exists(canary, LinkOption.NOFOLLOW_LINKS) ? "wrote " + canary : null;
            }

            @Override
            public void undo() throws IOException {
                deleteTree(canary);
            }
        };
    }

    static Escape changes(Path file, String original) {
        java.nio.file.attribute.FileTime[] modified = {null};
        return new Escape() {
            @Override
            public void before() {
                try {
                    modified[0] = Files.getLastModifiedTime(file);
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }

            @Override
            public String seen(CommandResult result) throws IOException {
                return Files.readString(file).equals(original) ? null : "overwrote " + file;
            }

            @Override
            public void undo() throws IOException {
                Files.writeString(file, original);
                Files.setLastModifiedTime(file, modified[0]);
            }
        };
    }

    static Escape survives(String marker) {
        return new Escape() {
            @Override
            public String seen(CommandResult result) throws InterruptedException {
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300); // a detaching process may take a moment
                while (running(marker).isEmpty() && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                List<ProcessHandle> left = running(marker);
                return left.isEmpty() ? null : "left " + left.size() + " process running after the command ended";
            }

            @Override
            public void undo() throws InterruptedException {
                running(marker).forEach(ProcessHandle::destroyForcibly);
                ProcessRunnerTest.awaitGone(marker);
            }
        };
    }

    static Escape connects() {
        int[] baseline = {0};
        return new Escape() {
            @Override
            public void before() {
                baseline[0] = connections.get();
            }

            @Override
            public String seen(CommandResult result) throws InterruptedException {
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300); // the accept loop counts after the command
                while (connections.get() == baseline[0] && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                return connections.get() == baseline[0] ? null : "connected to 127.0.0.1:" + listener.getLocalPort();
            }
        };
    }

    // --- helpers ---

    /** A sleep argument unique to this run, so processes are found by it machine-wide. */
    static String marker(String n) {
        return "200." + n + Math.abs(SECRET.hashCode() % 100_000);
    }

    static List<ProcessHandle> running(String marker) {
        return ProcessHandle.allProcesses().filter(p -> p.info().commandLine().orElse("").contains(marker))
                .filter(ProcessRunner.ProcessTree::running).toList();
    }

    /** The longest entry of this JVM's own environment: what the server's /proc/PID/environ would give away. */
    static String serverEnvironment() throws IOException {
        String environ = Files.readString(Path.of("/proc/self/environ"), StandardCharsets.ISO_8859_1);
        return Arrays.stream(environ.split("\0")).max(Comparator.comparingInt(String::length)).orElseThrow();
    }

    /** Every file and folder under the test's folder but the workspace, with a file's size and modification time. */
    static Map<String, String> filesOutsideTheWorkspace() throws IOException {
        Map<String, String> files = new TreeMap<>();
        try (Stream<Path> all = Files.walk(root)) {
            for (Path path : (Iterable<Path>) all.filter(p -> !p.startsWith(workspace.root()))::iterator) {
                files.put(root.relativize(path).toString(), Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS) ? "folder"
                        : Files.size(path) + " bytes, " + Files.getLastModifiedTime(path, LinkOption.NOFOLLOW_LINKS));
            }
        }
        return files;
    }

    /** The workspace as each run starts it: notes.txt, and evil.tar whose member is an absolute path outside. */
    static void resetWorkspace() throws Exception {
        try (Stream<Path> entries = Files.list(workspace.root())) {
            for (Path entry : entries.toList()) {
                deleteTree(entry);
            }
        }
        Files.writeString(workspace.root().resolve("notes.txt"), "one\ntwo\n");
        Files.write(workspace.root().resolve("evil.tar"), evilTar);
    }

    static void deleteTree(Path path) throws IOException {
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> all = Files.walk(path)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /** Runs a program of the host's for the test's own set-up (not the model's). */
    static void host(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor()).as(String.join(" ", command) + ": " + output).isZero();
    }
}
