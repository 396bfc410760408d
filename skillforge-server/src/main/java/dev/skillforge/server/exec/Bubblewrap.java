package dev.skillforge.server.exec;

import dev.skillforge.server.error.ConfigurationException;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
 *       read-only {@code /dev} (null, zero, random, tty…), a {@code /proc} of its own PID namespace,
 *       an empty {@code /tmp} and {@code /dev/shm} in memory ({@value #TMP_BYTES} and
 *       {@value #SHM_BYTES} bytes at most), and the workspace, writable, at its real path (so paths,
 *       {@code HOME} and links mean the same inside and out). Nothing else: no {@code /home},
 *       {@code /root}, data folder, server {@code /proc} or other {@code /etc} file; the root itself
 *       is read-only.</li>
 *   <li><b>Identity:</b> a user namespace in which it is uid and gid {@value #SANDBOX_ID} with no
 *       capability, whoever runs the server; it cannot create further user namespaces.</li>
 *   <li><b>Processes:</b> its own PID namespace: it is started by bwrap's init as PID 2 and sees
 *       only its own descendants. When it exits, or bwrap is killed ({@code --die-with-parent}),
 *       the namespace ends and the kernel kills everything left in it, {@code setsid} and double
 *       forks included. A new session: it has no terminal to inject input into.</li>
 *   <li><b>Network:</b> none, not even loopback, unless {@code FORGE_SANDBOX_NETWORK=1} (then the
 *       host's network, this server's port included, and {@code /etc/resolv.conf}, {@code hosts},
 *       {@code nsswitch.conf}, {@code ssl}… for name lookups and certificates).</li>
 *   <li><b>Environment:</b> the {@linkplain Sandbox#cleanEnvironment clean one}; bwrap itself is
 *       started with an empty environment, so its init ({@code /proc/1/environ}) holds nothing.</li>
 * </ul>
 * Not done: no seccomp filter (the kernel's whole system call interface stays reachable), no
 * limit on memory, CPU or the workspace's disk use (only on time and output).
 */
final class Bubblewrap implements Sandbox {

    /** The uid and gid inside: {@code nobody}/{@code nogroup}, never root. */
    static final int SANDBOX_ID = 65534;
    /** The most the in-memory {@code /tmp} holds. */
    static final long TMP_BYTES = 64L * 1024 * 1024;
    /** The most the in-memory {@code /dev/shm} (POSIX shared memory) holds. */
    static final long SHM_BYTES = 16L * 1024 * 1024;
    /** Top-level folders of the system view besides {@code /usr}: linked or bound as the host has them. */
    private static final List<Path> SYSTEM_FOLDERS = List.of(Path.of("/bin"), Path.of("/sbin"), Path.of("/lib"), Path.of("/lib32"),
            Path.of("/lib64"), Path.of("/libx32"));
    /** What a dynamically linked program needs from {@code /etc} to start (and {@code awk} -> /etc/alternatives). */
    private static final List<String> ETC = List.of("/etc/ld.so.cache", "/etc/alternatives", "/etc/localtime");
    /** Name lookups and certificates, only with the network. */
    private static final List<String> NETWORK_ETC = List.of("/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/host.conf",
            "/etc/gai.conf", "/etc/ssl", "/etc/ca-certificates");
    private static final long PROBE_SECONDS = 10;

    private final List<String> prefix;

    Bubblewrap(Path executable, Path workspace, boolean network) {
        List<String> line = new ArrayList<>(List.of(executable.toString(), "--unshare-all"));
        if (network) {
            line.add("--share-net");
        }
        line.addAll(List.of("--unshare-user", "--disable-userns", "--uid", Integer.toString(SANDBOX_ID), "--gid",
                Integer.toString(SANDBOX_ID), "--cap-drop", "ALL", "--die-with-parent", "--new-session", "--hostname", "sandbox",
                "--clearenv"));
        Sandbox.cleanEnvironment(workspace).entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(variable -> line.addAll(List.of("--setenv", variable.getKey(), variable.getValue())));
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
        // /tmp before the workspace, which may lie under it. Then the root and /dev, folders in memory that bwrap made and
        // the sandbox's user owns, become read-only: writes go to the workspace or the two small in-memory folders only.
        line.addAll(List.of("--proc", "/proc", "--dev", "/dev", "--size", Long.toString(SHM_BYTES), "--tmpfs", "/dev/shm",
                "--size", Long.toString(TMP_BYTES), "--tmpfs", "/tmp", "--bind", workspace.toString(), workspace.toString(),
                "--remount-ro", "/dev", "--remount-ro", "/", "--chdir", workspace.toString(), "--"));
        this.prefix = List.copyOf(line);
    }

    /**
     * bwrap and its init carry {@code --unsetenv SKILLFORGE_LAUNCH_<random>} (a no-op after
     * {@code --clearenv}) as the launch's mark: bwrap's init waits for bwrap to map its user ids
     * before it sets its parent-death signal, so when bwrap is killed in that moment the init is
     * orphaned and waits forever, holding the output pipe, and only its command line finds it.
     */
    @Override
    public Launch launch(List<String> argv) {
        String mark = "SKILLFORGE_LAUNCH_" + UUID.randomUUID().toString().replace("-", "");
        List<String> command = new ArrayList<>(prefix.size() + 2 + argv.size());
        command.add(prefix.getFirst());
        command.addAll(List.of("--unsetenv", mark));
        command.addAll(prefix.subList(1, prefix.size()));
        command.addAll(argv);
        return new Launch(command, Map.of(), Optional.of(mark));
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
    static Bubblewrap probed(Path executable, Path workspace, boolean network, CommandPolicy policy) {
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
        Bubblewrap sandbox = new Bubblewrap(executable, workspace, network);
        Launch launch = sandbox.launch(List.of(trueProgram.toString()));
        ProcessBuilder builder = new ProcessBuilder(launch.command()).directory(workspace.toFile()).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
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
