package dev.skillforge.server.exec;

import dev.skillforge.server.error.ConfigurationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * {@code FORGE_SANDBOX=bwrap} (the default): every allowed program runs inside
 * <a href="https://github.com/containers/bubblewrap">bubblewrap</a> (Debian's {@code bubblewrap}
 * package, 0.8 or newer), the way coding agents sandbox commands on Linux.
 *
 * <p>What the program sees and may do:
 * <ul>
 *   <li><b>Files:</b> a root of its own holding {@code /usr} read-only (with {@code /bin},
 *       {@code /lib}… as the host has them: links into {@code /usr} or read-only folders), from
 *       {@code /etc} only {@code ld.so.cache}, {@code alternatives} and {@code localtime}, a fresh
 *       read-only {@code /dev} (null, zero, random, tty…), a {@code /proc} of its own PID namespace
 *       (its {@code sys} read-only), an empty {@code /tmp} and {@code /dev/shm} in memory ({@value #TMP_BYTES} and
 *       {@value #SHM_BYTES} bytes at most), and its own workspace, writable, at its real path (so paths,
 *       {@code HOME} and links mean the same inside and out). Nothing else: no {@code /home},
 *       {@code /root}, data folder, other workspace, server {@code /proc} or other {@code /etc} file; the root
 *       itself is read-only; every mount is {@code nosuid} and {@code nodev}. No file it writes may be larger
 *       than the workspace's quota (the file-size limit, {@code SIGXFSZ} past it).</li>
 *   <li><b>Identity:</b> a user namespace in which it is uid and gid {@value #SANDBOX_ID} with no
 *       capability; outside, that is the {@link SandboxUser}: the server's own user, or when the server runs
 *       as root, an unprivileged one ({@code setpriv} drops to it before bwrap starts). It cannot create
 *       further user namespaces.</li>
 *   <li><b>System calls:</b> the {@link SeccompFilter}, which bwrap loads from the program's standard
 *       input before it starts the program: no mounts, namespaces, kernel modules, keyrings, tracing,
 *       io_uring, set-id bits…</li>
 *   <li><b>Processes:</b> its own PID namespace: it sees only its own descendants. When it exits, or bwrap
 *       is killed ({@code --die-with-parent}), the namespace ends and the kernel kills everything left in it,
 *       {@code setsid} and double forks included. A new session: it has no terminal to inject input into.</li>
 *   <li><b>Network:</b> none, not even loopback, unless {@code FORGE_SANDBOX_NETWORK=1} (then the
 *       host's network, this server's port included, and {@code /etc/resolv.conf}, {@code hosts},
 *       {@code nsswitch.conf}, {@code ssl}… for name lookups and certificates).</li>
 *   <li><b>Environment:</b> the {@linkplain Sandbox#cleanEnvironment clean one}; bwrap itself is
 *       started with an empty environment, so its init ({@code /proc/1/environ}) holds nothing.</li>
 * </ul>
 * bwrap reads the filter from file descriptor 0 and closes it, and a program without a standard input would
 * take the first file it opens for one: so the program is started by util-linux's {@code flock} on an empty
 * file of the sandbox's private {@code /tmp}, which {@code flock} opens as descriptor 0 and leaves open to
 * the program ({@link #STDIN}: read, it ends at once, like {@code /dev/null}).
 * Not done: no limit on memory, CPU or processes (only on time, output and file size).
 */
final class Bubblewrap implements Sandbox {

    /** The uid and gid inside: {@code nobody}/{@code nogroup}, never root. */
    static final int SANDBOX_ID = 65534;
    /** The most the in-memory {@code /tmp} holds. */
    static final long TMP_BYTES = 64L * 1024 * 1024;
    /** The most the in-memory {@code /dev/shm} (POSIX shared memory) holds. */
    static final long SHM_BYTES = 16L * 1024 * 1024;
    /** The program's standard input: an empty file in the sandbox's own {@code /tmp}. */
    static final String STDIN = "/tmp/.stdin";
    /** Top-level folders of the system view besides {@code /usr}: linked or bound as the host has them. */
    private static final List<Path> SYSTEM_FOLDERS = List.of(Path.of("/bin"), Path.of("/sbin"), Path.of("/lib"), Path.of("/lib32"),
            Path.of("/lib64"), Path.of("/libx32"));
    /** What a dynamically linked program needs from {@code /etc} to start (and {@code awk} -> /etc/alternatives). */
    private static final List<String> ETC = List.of("/etc/ld.so.cache", "/etc/alternatives", "/etc/localtime");
    /** Name lookups and certificates, only with the network. */
    private static final List<String> NETWORK_ETC = List.of("/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/host.conf",
            "/etc/gai.conf", "/etc/ssl", "/etc/ca-certificates");
    private static final long PROBE_SECONDS = 10;
    private static final Logger LOG = LoggerFactory.getLogger(Bubblewrap.class);

    /** Everything before the workspace's own options. */
    private final List<String> prefix;
    /** After the workspace: up to the program. */
    private final List<String> suffix;
    private final Path filter;

    /**
     * @param filter        the {@link SeccompFilter}'s program, in a file only the server reads
     * @param fileSizeBytes the largest file a program may write
     */
    Bubblewrap(Path executable, boolean network, SandboxUser user, Path filter, long fileSizeBytes) {
        this.filter = filter;
        List<String> line = new ArrayList<>(user.commandPrefix());
        line.addAll(List.of(prlimit().toString(), "--fsize=" + fileSizeBytes, "--"));
        line.addAll(List.of(executable.toString(), "--seccomp", "0", "--unshare-all"));
        if (network) {
            line.add("--share-net");
        }
        line.addAll(List.of("--unshare-user", "--disable-userns", "--uid", Integer.toString(SANDBOX_ID), "--gid",
                Integer.toString(SANDBOX_ID), "--cap-drop", "ALL", "--die-with-parent", "--new-session", "--hostname", "sandbox",
                "--clearenv"));
        line.addAll(List.of("--ro-bind", "/usr", "/usr"));
        for (Path folder : SYSTEM_FOLDERS) {
            if (Files.isSymbolicLink(folder)) {
                try {
                    line.addAll(List.of("--symlink", Files.readSymbolicLink(folder).toString(), folder.toString()));
                } catch (IOException e) {
                    throw new IllegalStateException("cannot read the link " + folder, e);
                }
            } else if (Files.isDirectory(folder)) {
                line.addAll(List.of("--ro-bind", folder.toString(), folder.toString()));
            }
        }
        for (String file : network ? concat(ETC, NETWORK_ETC) : ETC) {
            line.addAll(List.of("--ro-bind-try", file, file));
        }
        // /tmp before the workspace, which may lie under it.
        line.addAll(List.of("--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys", "--dev", "/dev", "--size",
                Long.toString(SHM_BYTES), "--tmpfs", "/dev/shm", "--size", Long.toString(TMP_BYTES), "--tmpfs", "/tmp"));
        this.prefix = List.copyOf(line);
        // Then the root and /dev, folders in memory that bwrap made and the sandbox's user owns, become read-only:
        // writes go to the workspace or the two small in-memory folders only.
        this.suffix = List.of("--remount-ro", "/dev", "--remount-ro", "/", "--", flock().toString(), "--shared", STDIN);
    }

    /**
     * bwrap and its init carry {@code --unsetenv SKILLFORGE_LAUNCH_<random>} (a no-op after
     * {@code --clearenv}) as the launch's mark: bwrap's init waits for bwrap to map its user ids
     * before it sets its parent-death signal, so when bwrap is killed in that moment the init is
     * orphaned and waits forever, holding the output pipe, and only its command line finds it.
     */
    @Override
    public Launch launch(List<String> argv, Path workspace) {
        String mark = "SKILLFORGE_LAUNCH_" + UUID.randomUUID().toString().replace("-", "");
        List<String> command = new ArrayList<>(prefix.size() + suffix.size() + 24 + argv.size());
        command.addAll(prefix);
        command.addAll(List.of("--unsetenv", mark));
        Sandbox.cleanEnvironment(workspace).entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(variable -> command.addAll(List.of("--setenv", variable.getKey(), variable.getValue())));
        command.addAll(List.of("--bind", workspace.toString(), workspace.toString(), "--chdir", workspace.toString()));
        command.addAll(suffix);
        command.addAll(argv);
        return new Launch(command, Map.of(), filter, Optional.of(mark));
    }

    private static Path prlimit() {
        return CommandPolicy.onSafePath("prlimit").orElseThrow(() -> new ConfigurationException("the sandbox limits the size of the"
                + " files programs write with util-linux's prlimit, and there is none in " + CommandPolicy.SAFE_PATH_VARIABLE
                + " (Debian, Ubuntu: apt-get install util-linux)"));
    }

    private static Path flock() {
        return CommandPolicy.onSafePath("flock").orElseThrow(() -> new ConfigurationException("the sandbox gives programs their"
                + " standard input with util-linux's flock, and there is none in " + CommandPolicy.SAFE_PATH_VARIABLE
                + " (Debian, Ubuntu: apt-get install util-linux)"));
    }

    /** {@code bwrap} on {@link CommandPolicy#SAFE_PATH}, or {@code /usr/bin/bwrap} (missing) when it is nowhere. */
    static Path find() {
        return CommandPolicy.onSafePath("bwrap").orElse(Path.of("/usr/bin/bwrap"));
    }

    /**
     * A sandbox that has just run {@code true} successfully with these very mounts.
     *
     * @param policy the allowed programs, for the message
     * @throws ConfigurationException when {@code executable} is missing or the sandboxed {@code true} fails,
     *                                  with bwrap's own words, how to install it, and {@code FORGE_SANDBOX=none}
     */
    static Bubblewrap probed(Path executable, Workspaces workspaces, boolean network, CommandPolicy policy) {
        String why = "FORGE_ALLOW_COMMANDS allows programs (" + policy + "), and they run in a bubblewrap sandbox"
                + " (FORGE_SANDBOX=bwrap, the default), but ";
        String fix = ". Install bubblewrap 0.8 or newer (Debian, Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap),"
                + " on a kernel that allows user namespaces (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0;"
                + " in a container, a seccomp profile that allows them), or set FORGE_SANDBOX=none to run the programs without a"
                + " sandbox (they can then read everything the server can)";
        if (!Files.isExecutable(executable)) {
            throw new ConfigurationException(why + "bubblewrap is not installed (no bwrap in " + CommandPolicy.SAFE_PATH_VARIABLE
                    + ")" + fix);
        }
        Path trueProgram = CommandPolicy.onSafePath("true").orElseThrow(() -> new ConfigurationException(
                "there is no 'true' program in " + CommandPolicy.SAFE_PATH_VARIABLE + " to check the sandbox with"));
        SeccompFilter filter = SeccompFilter.forThisMachine().orElseThrow(() -> new ConfigurationException(why + "the sandbox's"
                + " seccomp filter knows the system calls of x86_64 and aarch64 only, and this machine is " + System.getProperty("os.arch")
                + ": run on one of those, or set FORGE_SANDBOX=none"));
        Path workspace;
        Bubblewrap sandbox;
        try {
            workspace = workspaces.probe();
            Path program = workspaces.root().resolveSibling("sandbox-seccomp.bpf"); // written anew at every start
            Files.deleteIfExists(program);
            Files.write(Files.createFile(program, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))),
                    filter.program());
            sandbox = new Bubblewrap(executable, network, workspaces.user(), program, workspaces.quota().maxBytes());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the sandbox in " + workspaces.root(), e);
        }
        Launch launch = sandbox.launch(List.of(trueProgram.toString()), workspace);
        ProcessBuilder builder = new ProcessBuilder(launch.command()).directory(workspace.toFile()).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(launch.stdin().toFile()));
        builder.environment().clear();
        String failure;
        try {
            Process process = builder.start();
            if (!process.waitFor(PROBE_SECONDS, TimeUnit.SECONDS)) {
                new ProcessRunner.ProcessTree(process, launch.mark()).killAll(Duration.ofSeconds(1));
                failure = "a sandboxed 'true' did not end within " + PROBE_SECONDS + " s";
            } else if (process.exitValue() != 0) {
                String said = new String(process.getInputStream().readNBytes(2000), StandardCharsets.UTF_8).strip()
                        .replaceAll("\\s+", " ");
                failure = "bubblewrap does not work here (" + executable + " exited with " + process.exitValue()
                        + (said.isEmpty() ? "" : ": " + said) + ")";
            } else {
                LOG.info("Programs run in bubblewrap as {}, under a seccomp filter refusing {} system calls", workspaces.user().dropped()
                        ? "user " + workspaces.user().uid() + " (the server runs as root)" : "this server's user", filter.refusedCalls().size());
                return sandbox;
            }
        } catch (IOException e) {
            failure = executable + " could not be started (" + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failure = "the check was interrupted";
        }
        throw new ConfigurationException(why + failure + fix);
    }

    private static List<String> concat(List<String> first, List<String> second) {
        List<String> all = new ArrayList<>(first.size() + second.size());
        all.addAll(first);
        all.addAll(second);
        return all;
    }
}
