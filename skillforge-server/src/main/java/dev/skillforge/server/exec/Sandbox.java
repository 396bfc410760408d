package dev.skillforge.server.exec;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where an allowed program runs: the {@link ProcessRunner} asks it only for the command line, the
 * environment and the standard input that start a program's argv in a workspace, and starts that.
 *
 * <p>Two kinds ({@code FORGE_SANDBOX}): {@link Bubblewrap} (the default), which confines the
 * program with Linux namespaces and a seccomp filter (only its workspace writable, no server files,
 * processes or network, nothing outliving the command), and {@link NoSandbox}, which starts it directly
 * and leaves only the argument checks and the clean environment between the model and the machine. In
 * both, a server run as root runs the program as its unprivileged {@link SandboxUser}.
 */
public sealed interface Sandbox permits Bubblewrap, NoSandbox {

    /**
     * How to start one program.
     *
     * @param command     the command line for {@link ProcessBuilder}
     * @param environment the whole environment of that process (nothing of the server's)
     * @param stdin       the file its standard input is read from
     * @param mark        a text unique to this launch in the command line of every process the sandbox
     *                    runs before the program (found even once they are orphans), or empty
     */
    record Launch(List<String> command, Map<String, String> environment, Path stdin, Optional<String> mark) {
        public Launch {
            command = List.copyOf(command);
            environment = Map.copyOf(environment);
        }
    }

    /**
     * @param argv      the program as an absolute path, then its arguments, already checked
     * @param workspace the folder it runs in, and the only one it may write
     * @return what to start so that the program runs in the workspace with the clean environment
     */
    Launch launch(List<String> argv, Path workspace);

    /**
     * The environment every program gets, sandboxed or not: {@code PATH}
     * ({@value CommandPolicy#SAFE_PATH_VARIABLE}), {@code HOME}, {@code TMPDIR} and {@code PWD} (the
     * workspace; bwrap sets {@code PWD} anyway), {@code LANG=C.UTF-8}; no provider key, no token, no
     * database password.
     */
    static Map<String, String> cleanEnvironment(Path workspace) {
        String folder = workspace.toString();
        return Map.of("PATH", CommandPolicy.SAFE_PATH_VARIABLE, "HOME", folder, "TMPDIR", folder, "PWD", folder, "LANG", "C.UTF-8");
    }

    /**
     * The sandbox for the allowed programs, checked once: with {@code FORGE_SANDBOX=bwrap} and at least
     * one program allowed, a sandboxed {@code true} must run, or the server does not start. With no
     * program allowed nothing starts a process, so nothing is probed. {@code FORGE_SANDBOX=none} is
     * logged as a warning at every start.
     *
     * @throws dev.skillforge.server.error.ConfigurationException when bubblewrap (or util-linux's setpriv, prlimit
     *                                  or flock) is missing or does not work here, when this machine has no seccomp
     *                                  filter, or when the sandbox's user cannot reach the workspaces: saying what to do
     */
    static Sandbox forPrograms(SandboxSettings settings, CommandPolicy policy, Workspaces workspaces) {
        Logger log = LoggerFactory.getLogger(Sandbox.class);
        if (!policy.isEmpty()) {
            try {
                workspaces.user().requireReachable(workspaces.root());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the folders above " + workspaces.root(), e);
            }
        }
        if (settings.kind() == SandboxSettings.Kind.NONE) {
            if (policy.isEmpty()) {
                log.warn("FORGE_SANDBOX=none: no sandbox for the model's programs (none are allowed yet, so nothing runs"
                        + " unsandboxed)");
            } else {
                log.warn("FORGE_SANDBOX=none: the model's programs ({}) run WITHOUT an operating-system sandbox: they can read"
                        + " every file {} can read, write wherever it can, reach the network and leave processes behind, confined"
                        + " only by the argument checks. Remove FORGE_SANDBOX to run them in bubblewrap", policy,
                        workspaces.user().dropped() ? "user " + workspaces.user().uid() : "this server");
            }
            return new NoSandbox(workspaces.user());
        }
        if (policy.isEmpty()) {
            return new NoSandbox(workspaces.user()); // only the skill commands: no process is ever started
        }
        return Bubblewrap.probed(Bubblewrap.find(), workspaces, settings.network(), policy);
    }
}
