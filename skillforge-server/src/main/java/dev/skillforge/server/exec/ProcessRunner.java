package dev.skillforge.server.exec;

import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.agent.CommandResult;
import dev.skillforge.core.shell.ShellCommand;
import dev.skillforge.core.transcript.StorableText;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs the programs the operator allowed, and nothing else, without a shell.
 *
 * <p>A command line is {@linkplain CommandLine#split split} into an argv (shell syntax refused, not
 * interpreted), its program {@linkplain CommandPolicy#check checked} against the allow-list, its
 * arguments {@linkplain Workspace#check kept} inside the workspace, and only then is the program
 * started directly ({@code execve} of its absolute path, no {@code sh -c}), as its {@link Sandbox}
 * says (by default inside {@link Bubblewrap}), with:
 * <ul>
 *   <li>a {@linkplain Sandbox#cleanEnvironment clean environment}: nothing of the server's (no
 *       provider key, no token, no database password);</li>
 *   <li>the turn's workspace as its working folder, an empty standard input;</li>
 *   <li>stdout and stderr read together, counting bytes: past {@link Limits#outputBytes} the
 *       process is killed (exit {@value #EXIT_OUTPUT_CAP});</li>
 *   <li>a time limit (exit {@value #EXIT_TIMEOUT}), and a stop of the run kills it (exit
 *       {@value #EXIT_STOPPED});</li>
 *   <li>at most {@link Limits#maxConcurrent} commands at once; one more is refused at once
 *       ({@value #EXIT_REFUSED}), not queued.</li>
 * </ul>
 * Killing means the whole tree: the process and every descendant seen while it ran
 * ({@link ProcessHandle#descendants()}, polled), with SIGKILL, and the call returns only once they
 * are gone (at most about a second). In the sandbox the started process is bwrap, whose PID
 * namespace dies with it, so what the command started dies even if it detached between two polls.
 * A refused command gets {@value #EXIT_REFUSED} and a message saying why and what is allowed.
 * Every outcome is {@linkplain CommandStats counted}. Notes about how a command ended
 * ({@code [exit code 2]}, {@code [killed: …]}) come first, before the output, so they survive
 * every later cut of a long result.
 */
public final class ProcessRunner {

    public static final int EXIT_REFUSED = 126;
    public static final int EXIT_TIMEOUT = 124;
    public static final int EXIT_OUTPUT_CAP = 125;
    public static final int EXIT_STOPPED = 130;

    /** How often the descendants of a running command are looked up (so a double fork is still killed). */
    private static final long POLL_MILLIS = 50;
    /** How long a kill may take before the runner gives up waiting (processes in uninterruptible sleep). */
    private static final Duration KILL_WAIT = Duration.ofSeconds(1);

    private static final Logger LOG = LoggerFactory.getLogger(ProcessRunner.class);

    /**
     * @param timeout       how long a command may run ({@code FORGE_COMMAND_TIMEOUT_SECONDS})
     * @param outputBytes   how many bytes of stdout and stderr together are read before the command is killed
     *                      ({@code FORGE_COMMAND_OUTPUT_BYTES})
     * @param maxConcurrent how many commands may run at once, across all conversations ({@code FORGE_MAX_CONCURRENT_COMMANDS})
     */
    public record Limits(Duration timeout, long outputBytes, int maxConcurrent) {
        public static final Limits DEFAULT = new Limits(Duration.ofSeconds(10), 1024 * 1024, 4);

        public Limits {
            if (timeout.isNegative() || timeout.isZero() || outputBytes < 1 || maxConcurrent < 1) {
                throw new IllegalArgumentException("limits must be positive: " + timeout + ", " + outputBytes + ", " + maxConcurrent);
            }
        }
    }

    /** Programs that remove what their arguments name: they still run in a workspace over its quota, to clear it. */
    private static final Set<String> REMOVERS = Set.of("rm", "rmdir", "unlink");
    /** The exit status of a program killed by SIGXFSZ, a file past the size limit. */
    private static final int EXIT_FILE_TOO_LARGE = 128 + 25;

    private final CommandPolicy policy;
    private final Sandbox sandbox;
    private final Limits limits;
    private final Semaphore slots;
    private final CommandStats stats;

    public ProcessRunner(CommandPolicy policy, Sandbox sandbox, Limits limits, CommandStats stats) {
        this.policy = policy;
        this.sandbox = sandbox;
        this.limits = limits;
        this.slots = new Semaphore(limits.maxConcurrent());
        this.stats = stats;
    }

    public CommandPolicy policy() {
        return policy;
    }

    /**
     * Runs {@code command} in {@code workspace}, if the allow-list, the argument checks and the workspace's state
     * let it: a workspace holding a link that leads out, or over its quota, runs only programs that remove files.
     */
    public CommandResult run(ShellCommand command, Workspace workspace, Cancellation cancellation) {
        List<String> argv;
        CommandPolicy.Program program;
        try {
            argv = CommandLine.split(command.command());
            program = policy.check(argv);
            boolean removes = REMOVERS.contains(program.name());
            if (removes) {
                workspace.checkRemoval(argv.subList(1, argv.size()));
            } else {
                workspace.check(argv.subList(1, argv.size()));
            }
            Optional<String> refusal = workspace.inspect().refusal();
            if (refusal.isPresent() && !removes) {
                throw new CommandRefused(CommandRefused.Kind.WORKSPACE, refusal.get() + ": only rm and rmdir run until files are"
                        + " removed, and the person can clear this conversation's workspace");
            }
        } catch (CommandRefused e) {
            stats.count(CommandStats.Outcome.REFUSED);
            LOG.warn("Refused command {}: {} ({})", command.id(), forLog(command.command()), e.getMessage());
            String message = e.kind() == CommandRefused.Kind.NOT_ALLOWED ? e.getMessage()
                    : "refused: " + e.getMessage() + ". Allowed: " + policy.describe();
            return CommandResult.failed(message + ". Nothing was run.", EXIT_REFUSED);
        }
        return execute(command, program, argv, workspace, cancellation);
    }

    /**
     * Runs {@code argv} once its checks have passed (the tests of the sandbox call it directly, to show
     * what a program could do past checks that missed something): a slot, then the sandboxed process.
     */
    CommandResult execute(ShellCommand command, CommandPolicy.Program program, List<String> argv, Workspace workspace,
                          Cancellation cancellation) {
        if (!slots.tryAcquire()) {
            stats.count(CommandStats.Outcome.BUSY);
            LOG.warn("Refused command {}: {} commands already running", command.id(), limits.maxConcurrent());
            return CommandResult.failed("not run: " + limits.maxConcurrent() + " commands are already running, the most this server"
                    + " runs at once; try again when one has finished. Nothing was run.", EXIT_REFUSED);
        }
        try {
            return start(command, program, argv, workspace, cancellation);
        } finally {
            slots.release();
        }
    }

    private CommandResult start(ShellCommand command, CommandPolicy.Program program, List<String> argv, Workspace workspace,
                                Cancellation cancellation) {
        if (cancellation.isCancelled()) {
            stats.count(CommandStats.Outcome.STOPPED);
            return CommandResult.failed("[not run: the run was stopped]", EXIT_STOPPED);
        }
        List<String> line = new ArrayList<>(argv.size());
        line.add(program.path().toString());
        line.addAll(argv.subList(1, argv.size()));
        Sandbox.Launch launch = sandbox.launch(line, workspace.root());
        ProcessBuilder builder = new ProcessBuilder(launch.command())
                .directory(workspace.root().toFile())
                .redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(launch.stdin().toFile()));
        Map<String, String> environment = builder.environment();
        environment.clear();
        environment.putAll(launch.environment());

        long started = System.nanoTime();
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            stats.count(CommandStats.Outcome.START_FAILED);
            LOG.warn("Command {} ({}) could not be started: {}", command.id(), program.path(), e.toString());
            return CommandResult.failed("error: " + program.name() + " could not be started (" + e.getClass().getSimpleName()
                    + "). Nothing was run.", EXIT_REFUSED);
        }
        ProcessTree tree = new ProcessTree(process, launch.mark());
        OutputReader output = new OutputReader(process.getInputStream(), limits.outputBytes(), tree::killOnce);
        Thread reader = Thread.ofVirtual().name("command-output-" + command.id()).start(output);
        AtomicBoolean stopped = new AtomicBoolean();
        boolean timedOut = false;
        try (AutoCloseable ignored = cancellation.onCancel(() -> {
            stopped.set(true);
            tree.killOnce();
        })) {
            long deadline = started + limits.timeout().toNanos();
            while (!process.waitFor(POLL_MILLIS, TimeUnit.MILLISECONDS)) {
                tree.track();
                if (System.nanoTime() - deadline >= 0) {
                    timedOut = true;
                    break;
                }
            }
        } catch (InterruptedException e) {
            stopped.set(true);
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            throw new IllegalStateException("closing a cancellation handle does not fail", e);
        } finally {
            // Whatever happened, nothing it started outlives the command.
            tree.killAll(KILL_WAIT);
            output.finish(reader, KILL_WAIT);
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        String text = output.text();

        if (output.capped()) {
            stats.count(CommandStats.Outcome.OUTPUT_CAPPED);
            LOG.warn("Command {} killed: output over {} bytes", command.id(), limits.outputBytes());
            return CommandResult.failed("[killed: the output passed " + limits.outputBytes() + " bytes, the limit of this server;"
                    + " the rest was not read, and the command and everything it started were stopped. The first bytes:]\n" + text,
                    EXIT_OUTPUT_CAP);
        }
        if (timedOut) {
            stats.count(CommandStats.Outcome.TIMED_OUT);
            LOG.warn("Command {} killed: still running after {}", command.id(), limits.timeout());
            return CommandResult.failed("[killed: no result within " + seconds(limits.timeout()) + ", the time limit of this server;"
                    + " the command and everything it started were stopped]" + (text.isEmpty() ? "" : "\n" + text), EXIT_TIMEOUT);
        }
        if (stopped.get()) {
            stats.count(CommandStats.Outcome.STOPPED);
            return CommandResult.failed("[stopped: the run was stopped; the command and everything it started were killed]"
                    + (text.isEmpty() ? "" : "\n" + text), EXIT_STOPPED);
        }
        int exit = process.exitValue();
        LOG.debug("Command {} ran {} in {} ms: exit {}", command.id(), program.name(), millis, exit);
        if (exit == 0) {
            stats.count(CommandStats.Outcome.SUCCEEDED);
            return CommandResult.ok(text);
        }
        stats.count(CommandStats.Outcome.FAILED);
        String note = exit == EXIT_FILE_TOO_LARGE ? "[exit code " + exit + ": killed writing a file past " + workspace.quota().maxBytes()
                + " bytes, the largest a workspace may hold]" : "[exit code " + exit + "]";
        return CommandResult.failed(note + (text.isEmpty() ? "" : "\n" + text), exit);
    }

    private static String seconds(Duration duration) {
        long millis = duration.toMillis();
        return millis % 1000 == 0 ? millis / 1000 + " s" : millis + " ms";
    }

    /** A command line for the log: one line, control characters shown as '?', at most 200 characters. */
    static String forLog(String text) {
        StringBuilder out = new StringBuilder(Math.min(text.length(), 201));
        for (int i = 0; i < text.length() && out.length() < 200; i++) {
            char c = text.charAt(i);
            out.append(c < 0x20 || c == 0x7f ? '?' : c);
        }
        return text.length() > 200 ? out + "…" : out.toString();
    }

    /** A started process, every descendant seen so far, and once the root was killed, every process carrying its launch's mark. */
    static final class ProcessTree {
        private final Process root;
        private final Optional<String> mark;
        private final Set<ProcessHandle> seen = ConcurrentHashMap.newKeySet();
        private volatile boolean rootKilled;

        ProcessTree(Process root, Optional<String> mark) {
            this.root = root;
            this.mark = mark;
        }

        /** Remembers the current descendants, so one that is orphaned later is still known. */
        void track() {
            try {
                root.descendants().forEach(seen::add);
            } catch (RuntimeException e) {
                // the process table changed under us: the next poll sees it
            }
        }

        /** SIGKILL to the process and every descendant known or visible now; does not wait. */
        void killOnce() {
            List<ProcessHandle> all = new ArrayList<>(seen);
            try {
                root.descendants().forEach(all::add);
            } catch (RuntimeException e) {
                // killed below from what was seen
            }
            // First, so it starts nothing more. Through its handle: Process.destroyForcibly() would also close
            // the output pipe, losing what an already finished process wrote and the reader has not read yet.
            if (root.isAlive()) {
                rootKilled = true;
            }
            root.toHandle().destroyForcibly();
            if (rootKilled) {
                // After the root's kill, so a child it made since the look at its descendants is found too,
                // even orphaned (a sandbox's init killed half-way through its set-up).
                mark.ifPresent(text -> marked(text).forEach(all::add));
            }
            for (ProcessHandle handle : all) {
                seen.add(handle);
                handle.destroyForcibly(); // checks the start time: a reused pid is left alone
            }
        }

        /** Every other process whose command line holds {@code text} (ASCII). */
        private List<ProcessHandle> marked(String text) {
            return ProcessHandle.allProcesses().filter(handle -> handle.pid() != root.pid() && commandLine(handle).contains(text)).toList();
        }

        private static String commandLine(ProcessHandle handle) {
            try {
                return Files.readString(Path.of("/proc", Long.toString(handle.pid()), "cmdline"), StandardCharsets.ISO_8859_1);
            } catch (IOException | RuntimeException e) {
                return ""; // gone, or no /proc
            }
        }

        /**
         * Alive and not a zombie: a killed grandchild is re-parented, and if nobody reaps it (PID 1 in some
         * containers does not) it lingers as a zombie that {@link ProcessHandle#isAlive()} still reports.
         */
        static boolean running(ProcessHandle handle) {
            if (!handle.isAlive()) {
                return false;
            }
            try {
                String stat = Files.readString(Path.of("/proc", Long.toString(handle.pid()), "stat"));
                int end = stat.lastIndexOf(')');
                char state = end > 0 && end + 2 < stat.length() ? stat.charAt(end + 2) : '?';
                return state != 'Z' && state != 'X';
            } catch (IOException | RuntimeException e) {
                return handle.isAlive(); // no /proc (not Linux), or it just ended
            }
        }

        /** Kills until nothing of the tree is alive, or {@code wait} has passed. */
        void killAll(Duration wait) {
            long deadline = System.nanoTime() + wait.toNanos();
            while (true) {
                killOnce();
                boolean alive = root.isAlive() || seen.stream().anyMatch(ProcessTree::running);
                if (!alive || System.nanoTime() - deadline >= 0) {
                    if (alive) {
                        LOG.warn("A command's processes were still alive {} after SIGKILL", wait);
                    }
                    return;
                }
                try {
                    root.waitFor(10, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** Reads stdout and stderr, keeping and counting bytes up to the cap; past it, kills the command. */
    static final class OutputReader implements Runnable {
        private final InputStream in;
        private final long cap;
        private final Runnable kill;
        private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
        private volatile boolean capped;

        OutputReader(InputStream in, long cap, Runnable kill) {
            this.in = in;
            this.cap = cap;
            this.kill = kill;
        }

        @Override
        public void run() {
            byte[] buffer = new byte[16 * 1024];
            long total = 0;
            try {
                int n;
                while ((n = in.read(buffer)) > 0) {
                    long room = cap - total;
                    total += n;
                    synchronized (kept) {
                        kept.write(buffer, 0, (int) Math.min(n, Math.max(0, room)));
                    }
                    if (total > cap) {
                        capped = true;
                        kill.run();
                        return;
                    }
                }
            } catch (IOException e) {
                // the stream was closed by finish(): what was read is kept
            }
        }

        /** Waits for the reader; if a process that escaped still holds the pipe open, closes it. */
        void finish(Thread reader, Duration wait) {
            try {
                if (!reader.join(wait)) {
                    in.close();
                    reader.join(wait);
                }
                in.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (IOException e) {
                // closing a pipe does not fail in a way that matters here
            }
        }

        boolean capped() {
            return capped;
        }

        String text() {
            byte[] bytes;
            synchronized (kept) {
                bytes = kept.toByteArray();
            }
            try {
                String decoded = StandardCharsets.UTF_8.newDecoder()
                        .onMalformedInput(CodingErrorAction.REPLACE)
                        .onUnmappableCharacter(CodingErrorAction.REPLACE)
                        .decode(ByteBuffer.wrap(bytes)).toString();
                return StorableText.clean(decoded);
            } catch (java.nio.charset.CharacterCodingException e) {
                throw new IllegalStateException("a replacing decoder does not throw", e);
            }
        }
    }
}
