package dev.skillforge.server.exec;

import dev.skillforge.server.error.ConfigurationException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Which programs the model may run: the operator's allow-list ({@code FORGE_ALLOW_COMMANDS}),
 * each name resolved once, at start, to an absolute path on a fixed {@link #SAFE_PATH}, and
 * optionally a pattern every argument must match ({@code FORGE_ALLOW_ARGS_NAME}). Empty by default:
 * then only the in-process {@code skill} commands exist.
 *
 * <p>Programs whose purpose is to run other programs (shells, {@code env}, {@code xargs},
 * {@code sudo}, {@code timeout}…) are refused at start even if listed: allowing one would allow
 * everything; so are those that signal other processes ({@code kill}…), which could stop the server. Programs that can run others as a side feature ({@code find -exec}, {@code awk}'s
 * {@code system()}, GNU {@code sed}'s {@code e}, interpreters) are the operator's call: leave them
 * out, or pin their arguments with a pattern.
 */
public final class CommandPolicy {

    /** Where allowed programs are looked up, in order; also the {@code PATH} they run with. */
    public static final List<Path> SAFE_PATH = List.of(Path.of("/usr/local/bin"), Path.of("/usr/bin"), Path.of("/bin"));
    public static final String SAFE_PATH_VARIABLE = "/usr/local/bin:/usr/bin:/bin";

    /** Never allowed: each one runs whatever its arguments say. */
    public static final Set<String> NEVER = Set.of(
            "sh", "bash", "dash", "zsh", "ksh", "mksh", "pdksh", "csh", "tcsh", "fish", "ash", "rbash", "yash", "elvish", "nu",
            "env", "xargs", "sudo", "su", "doas", "pkexec", "runuser", "setpriv", "nohup", "setsid", "timeout", "nice", "ionice",
            "chroot", "stdbuf", "script", "watch", "strace", "ltrace", "gdb", "exec", "eval", "command", "builtin", "time",
            "flock", "unshare", "nsenter", "chpst", "taskset", "parallel", "systemd-run", "ssh", "busybox", "toybox");
    /** Never allowed: each one can stop other processes, the server's own included. */
    public static final Set<String> SIGNALS = Set.of("kill", "pkill", "killall", "killall5", "skill", "snice", "pkexec");
    /** Binaries that dispatch on the name they are started by ({@code /bin/ls} may be a link to one of these). */
    private static final Set<String> MULTI_CALL = Set.of("busybox", "toybox", "coreutils");
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._+-]{0,63}");

    /** One allowed program. */
    public record Program(String name, Path path, Pattern arguments) {
    }

    private final Map<String, Program> programs;

    private CommandPolicy(Map<String, Program> programs) {
        this.programs = Collections.unmodifiableMap(programs);
    }

    /** Nothing but the skill commands. */
    public static CommandPolicy none() {
        return new CommandPolicy(Map.of());
    }

    /** The environment variable that holds the argument pattern of {@code program}. */
    public static String argumentsVariable(String program) {
        return "FORGE_ALLOW_ARGS_" + program.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_");
    }

    /**
     * Resolves the allow-list on {@link #SAFE_PATH}.
     *
     * @param names      the program names ({@code FORGE_ALLOW_COMMANDS})
     * @param argPatterns from {@link #argumentsVariable} names to regular expressions each argument must match in full
     * @throws ConfigurationException naming the variable, when a name is malformed, forbidden or not found,
     *                                  or a pattern does not compile or belongs to no listed program
     */
    public static CommandPolicy resolve(List<String> names, Map<String, String> argPatterns) {
        Map<String, Program> programs = new LinkedHashMap<>();
        Map<String, String> unused = new LinkedHashMap<>(argPatterns);
        for (String name : names) {
            if (!NAME.matcher(name).matches()) {
                throw new ConfigurationException("FORGE_ALLOW_COMMANDS: '" + name + "' is not a program name (letters, digits, '.', '_',"
                        + " '+', '-'; no paths: names are looked up in " + SAFE_PATH_VARIABLE + ")");
            }
            if (NEVER.contains(name)) {
                throw new ConfigurationException("FORGE_ALLOW_COMMANDS: '" + name + "' runs other programs, so allowing it would allow"
                        + " everything; it cannot be allowed");
            }
            if (SIGNALS.contains(name)) {
                throw new ConfigurationException("FORGE_ALLOW_COMMANDS: '" + name + "' can stop other processes, the server's own"
                        + " included" + (name.equals("skill") ? " (and 'skill' always means the in-process skill commands)" : "")
                        + "; it cannot be allowed");
            }
            Path path = find(name);
            String variable = argumentsVariable(name);
            String regex = unused.remove(variable);
            Pattern pattern = null;
            if (regex != null) {
                try {
                    pattern = Pattern.compile(regex);
                } catch (PatternSyntaxException e) {
                    throw new ConfigurationException(variable + " is not a valid regular expression: " + e.getDescription());
                }
            }
            programs.put(name, new Program(name, path, pattern));
        }
        if (!unused.isEmpty()) {
            throw new ConfigurationException(String.join(", ", unused.keySet())
                    + " names no program in FORGE_ALLOW_COMMANDS (allowed: " + (programs.isEmpty() ? "none" : String.join(",", programs.keySet())) + ")");
        }
        return new CommandPolicy(programs);
    }

    private static Path find(String name) {
        Path candidate = onSafePath(name).orElseThrow(() -> new ConfigurationException(
                "FORGE_ALLOW_COMMANDS: '" + name + "' was not found in " + SAFE_PATH_VARIABLE));
        String real;
        try {
            real = candidate.toRealPath().getFileName().toString();
        } catch (IOException e) {
            throw new ConfigurationException("FORGE_ALLOW_COMMANDS: '" + name + "' (" + candidate + ") cannot be resolved: " + e);
        }
        if (!real.equals(name) && NEVER.contains(real) && !MULTI_CALL.contains(real)) {
            throw new ConfigurationException("FORGE_ALLOW_COMMANDS: '" + name + "' is " + candidate + " -> " + real
                    + ", which runs other programs; it cannot be allowed");
        }
        return candidate;
    }

    /** The first executable file {@code name} in {@link #SAFE_PATH}. */
    static Optional<Path> onSafePath(String name) {
        return SAFE_PATH.stream().map(folder -> folder.resolve(name))
                .filter(candidate -> Files.isRegularFile(candidate) && Files.isExecutable(candidate)).findFirst();
    }

    public boolean isEmpty() {
        return programs.isEmpty();
    }

    public Map<String, Program> programs() {
        return programs;
    }

    /**
     * The program for {@code argv}, once its name is allowed and every argument matches its pattern.
     */
    public Program check(List<String> argv) throws CommandRefused {
        String name = argv.getFirst();
        Program program = programs.get(name);
        if (program == null) {
            String hint = name.contains("/") ? " (write a program's name, not a path)" : "";
            throw new CommandRefused(CommandRefused.Kind.NOT_ALLOWED, "not allowed: " + CommandRefused.quote(name) + hint + "; allowed: " + describe());
        }
        if (program.arguments() != null) {
            for (String argument : argv.subList(1, argv.size())) {
                if (!program.arguments().matcher(argument).matches()) {
                    throw new CommandRefused(CommandRefused.Kind.NOT_ALLOWED, "not allowed: the argument " + CommandRefused.quote(argument) + " of " + name
                            + " is outside what this server allows for it (" + program.arguments().pattern() + ")");
                }
            }
        }
        return program;
    }

    /** What may run, for messages: the programs, and the skill commands that always exist. */
    public String describe() {
        List<String> names = new ArrayList<>(programs.keySet());
        return (names.isEmpty() ? "no programs" : String.join(", ", names)) + ", and the skill commands (skill help lists them)";
    }


    @Override
    public String toString() {
        return programs.isEmpty() ? "none" : String.join(",", programs.keySet());
    }
}
