package dev.skillforge.testkit;

import dev.skillforge.server.TemporaryFolders;
import dev.skillforge.server.cache.PrefixGuard;

import java.io.File;
import java.io.IOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Collectors;

/**
 * {@code dev.skillforge.server.Main serve} in a child JVM, as an operator runs it: settings only
 * from {@code FORGE_*} variables, the test JVM's class path, its own loopback port and data
 * folder, in the UTF-8 locale {@code ./skillforge} gives the JVM ({@link #startByLauncher} goes
 * through the launcher itself). {@link #start} returns once {@code GET /healthz} answers 200; {@link #kill()} is
 * {@code kill -9} (no shutdown hook runs), {@link #stop()} is {@code kill -TERM} (the shutdown hook drains,
 * stops the turns, flushes and closes). The child's output (its log is on stderr) goes to a file
 * under {@code target/process-logs}, and every failure message here quotes its end.
 */
public final class ServerProcess implements HttpEndpoint, AutoCloseable {

    /** The locale {@code ./skillforge} runs the JVM in, whatever the caller's: child JVMs of the tests run in it too. */
    public static final String LAUNCHER_LOCALE = "C.UTF-8";

    private static final Duration START_TIMEOUT = Duration.ofSeconds(45);
    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(30);
    private static final HttpClient HTTP = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();

    private final String name;
    private final Process process;
    private final int port;
    private final Path log;

    private ServerProcess(String name, Process process, int port, Path log) {
        this.name = name;
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /**
     * Starts a server and waits until it is healthy.
     *
     * @param name    names the log file ({@code target/process-logs/NAME.log}); unique per start
     * @param dataDir {@code FORGE_DATA_DIR}
     * @param env     further {@code FORGE_*} settings (provider, database…); {@code FORGE_PORT} is chosen here
     */
    public static ServerProcess start(String name, Path dataDir, Map<String, String> env) throws IOException, InterruptedException {
        return start(name, dataDir, env, ServerProcess::launch);
    }

    /**
     * Starts a server on a given port (behind a balancer that names it), and waits until it is healthy.
     *
     * @param port {@code FORGE_PORT}: fails if it is taken
     */
    public static ServerProcess startOnPort(String name, Path dataDir, Map<String, String> env, int port)
            throws IOException, InterruptedException {
        Path logs = Path.of("target", "process-logs").toAbsolutePath();
        Files.createDirectories(logs);
        ServerProcess server = launch(name, dataDir, env, port, logs.resolve(name + ".log"));
        try {
            server.awaitHealthy();
        } catch (AssertionError e) {
            server.kill();
            throw e;
        }
        return server;
    }

    /** A free loopback port now (it may be taken by the time it is used). */
    public static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        }
    }

    /**
     * Starts a server through the launcher, {@code ./skillforge serve}, as an operator's service manager
     * might: with an environment that holds only {@code JAVA_HOME} and {@code env} (no {@code PATH},
     * {@code HOME}, {@code LANG} or {@code LC_*}). The launcher runs from a copy beside a jar that names
     * the test JVM's class path ({@link #launcherIn}, in {@code target/launcher-root-PID}: one per test JVM, as test
     * JVMs run side by side), so it finds a fresh build and builds nothing.
     */
    public static ServerProcess startByLauncher(String name, Path dataDir, Map<String, String> env) throws IOException, InterruptedException {
        Path launcher = launcherIn(Path.of("target", "launcher-root-" + ProcessHandle.current().pid()).toAbsolutePath());
        return start(name, dataDir, env, (n, data, settings, port, log) -> launchByLauncher(n, launcher, null, data, settings, port, log));
    }

    /**
     * Starts a server through a launcher of {@link #launcherIn}, in {@code workingFolder}, as
     * {@link #startByLauncher(String, Path, Map)} does but without {@code FORGE_DATA_DIR}: the data folder is the default.
     */
    public static ServerProcess startByLauncher(String name, Path launcher, Path workingFolder, Map<String, String> env)
            throws IOException, InterruptedException {
        return start(name, null, env, (n, data, settings, port, log) -> launchByLauncher(n, launcher, workingFolder, data, settings, port, log));
    }

    /** How a server process is started: {@code java} directly or through the launcher. */
    private interface Launch {
        public ServerProcess launch(String name, Path dataDir, Map<String, String> env, int port, Path log) throws IOException;
    }

    private static ServerProcess start(String name, Path dataDir, Map<String, String> env, Launch how) throws IOException, InterruptedException {
        Path logs = Path.of("target", "process-logs").toAbsolutePath();
        Files.createDirectories(logs);
        if (dataDir != null) {
            SandboxFolders.passable(dataDir);
        }
        AssertionError last = null;
        for (int attempt = 1; attempt <= 3; attempt++) {
            Path log = logs.resolve(name + (attempt == 1 ? "" : "-attempt" + attempt) + ".log");
            int port = freePort();
            ServerProcess server = how.launch(name, dataDir, env, port, log);
            try {
                server.awaitHealthy();
                return server;
            } catch (AssertionError e) {
                server.kill();
                // The free port can be taken between our probe and the child's bind: try another.
                if (!server.output().contains("is already in use by another program")) {
                    throw e;
                }
                last = e;
            }
        }
        throw last;
    }

    /**
     * Starts a server that must refuse to start, and waits for it to exit.
     *
     * @throws AssertionError when it is still running after the start timeout (it started instead)
     */
    public static ServerProcess refusing(String name, Path dataDir, Map<String, String> env) throws IOException, InterruptedException {
        return refusing(name, dataDir, env, freePort());
    }

    /** As {@link #refusing(String, Path, Map)}, told to listen on {@code port}. */
    public static ServerProcess refusing(String name, Path dataDir, Map<String, String> env, int port) throws IOException, InterruptedException {
        Path logs = Path.of("target", "process-logs").toAbsolutePath();
        Files.createDirectories(logs);
        ServerProcess server = launch(name, dataDir, env, port, logs.resolve(name + ".log"));
        if (!server.process.waitFor(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            server.kill();
            throw new AssertionError("server " + name + " started instead of refusing; its output:\n" + server.tail());
        }
        return server;
    }

    /** The children's JVM: two cores run the tests, a database and up to two servers, so a small, quick-starting one. */
    private static final List<String> CHILD_JVM_OPTIONS = List.of("--enable-native-access=ALL-UNNAMED",
            "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            // A cache break fails the child's model call too, as it does in this JVM.
            "-D" + PrefixGuard.STRICT_PROPERTY + "=" + PrefixGuard.strictByProperty());

    private static ServerProcess launch(String name, Path dataDir, Map<String, String> env, int port, Path log) throws IOException {
        try {
            return launch(name, dataDir, env, port, log, ChildStartCache.options(CHILD_JVM_OPTIONS, ServerProcess::trainStartCache));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while the start-up cache was trained", e);
        }
    }

    private static ServerProcess launch(String name, Path dataDir, Map<String, String> env, int port, Path log, List<String> cacheOptions)
            throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(CHILD_JVM_OPTIONS);
        command.addAll(cacheOptions);
        command.addAll(List.of("-cp", ChildStartCache.classPath(), "dev.skillforge.server.Main", "serve"));
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        Map<String, String> environment = builder.environment();
        environment.keySet().removeIf(key -> key.startsWith("FORGE_")); // only what the test says
        environment.put("LC_ALL", LAUNCHER_LOCALE);
        environment.putAll(settings(dataDir, env, port));
        return new ServerProcess(name, builder.start(), port, log);
    }

    /** The start-up cache's training: what most tests do first, a start and a turn (the offline demo answers it). */
    private static void trainStartCache(List<String> trainingOptions) throws IOException, InterruptedException {
        Path data = Files.createTempDirectory("child-start-training");
        Path log = Path.of("target", "process-logs").toAbsolutePath().resolve("child-start-training-" + ProcessHandle.current().pid() + ".log");
        Files.createDirectories(log.getParent());
        SandboxFolders.passable(data);
        try (ServerProcess server = launch("child-start-training", data, Map.of(), freePort(), log, trainingOptions)) {
            server.awaitHealthy();
            ForgeClient.turn(server, ForgeClient.create(server), "Make a skill that greets people.");
            server.stop(); // the JVM writes the cache as it exits
        } finally {
            TemporaryFolders.delete(data);
        }
    }

    private static ServerProcess launchByLauncher(String name, Path launcher, Path workingFolder, Path dataDir, Map<String, String> env,
                                                  int port, Path log) throws IOException {
        ProcessBuilder builder = launcherCommand(launcher, workingFolder, settings(dataDir, env, port), "serve")
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        return new ServerProcess(name, builder.start(), port, log);
    }

    /**
     * {@code LAUNCHER ARGS…} in {@code workingFolder} (or this one, when {@code null}) with an environment that holds only
     * {@code JAVA_HOME} and {@code env}, as a service manager or an MCP client starts it.
     */
    public static ProcessBuilder launcherCommand(Path launcher, Path workingFolder, Map<String, String> env, String... args) {
        List<String> command = new ArrayList<>(List.of(launcher.toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        if (workingFolder != null) {
            builder.directory(workingFolder.toFile());
        }
        Map<String, String> environment = builder.environment();
        environment.clear();
        environment.put("JAVA_HOME", System.getProperty("java.home"));
        environment.putAll(env);
        return builder;
    }

    private static Map<String, String> settings(Path dataDir, Map<String, String> env, int port) {
        Map<String, String> settings = new LinkedHashMap<>(env);
        settings.put("FORGE_HOST", "127.0.0.1");
        settings.put("FORGE_PORT", Integer.toString(port));
        if (dataDir != null) {
            settings.put("FORGE_DATA_DIR", dataDir.toString());
        }
        return settings;
    }

    /**
     * A copy of the repository's {@code ./skillforge} in {@code installation}, beside the
     * {@code skillforge-server/target/skillforge.jar} it runs: a jar of nothing but a manifest whose
     * class path is the test JVM's, so the launcher starts the classes under test (with the server's JVM options, and
     * the start-up cache it trains in the background after a start that found none). Returns the launcher's path.
     */
    public static synchronized Path launcherIn(Path installation) throws IOException {
        Path jar = installation.resolve("skillforge-server/target/skillforge.jar");
        Files.createDirectories(jar.getParent());
        Path launcher = Files.copy(Path.of("..", "skillforge").toAbsolutePath(), installation.resolve("skillforge"),
                StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.COPY_ATTRIBUTES);
        Files.copy(Path.of("..", "skillforge-server", "jvm.options").toAbsolutePath(), installation.resolve("skillforge-server/jvm.options"),
                StandardCopyOption.REPLACE_EXISTING);
        Manifest manifest = new Manifest();
        Attributes main = manifest.getMainAttributes();
        main.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        main.put(Attributes.Name.MAIN_CLASS, "dev.skillforge.server.Main");
        main.put(Attributes.Name.CLASS_PATH, Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(entry -> Path.of(entry).toAbsolutePath().toUri().toString()).collect(Collectors.joining(" ")));
        main.putValue("Enable-Native-Access", "ALL-UNNAMED");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest)) {
            out.flush();
        }
        return launcher;
    }

    private void awaitHealthy() throws InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        String lastProblem = "no answer yet";
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError("server " + name + " exited with " + process.exitValue()
                        + " before it was healthy; its output:\n" + tail());
            }
            try {
                HttpResponse<String> health = HTTP.send(HttpRequest.newBuilder(URI.create(url("/healthz")))
                        .timeout(Duration.ofSeconds(2)).GET().build(), HttpResponse.BodyHandlers.ofString());
                if (health.statusCode() == 200) {
                    return;
                }
                lastProblem = "GET /healthz answered " + health.statusCode() + ": " + health.body();
            } catch (ConnectException e) {
                lastProblem = "not listening yet";
            } catch (IOException e) {
                lastProblem = e.toString();
            }
            Thread.sleep(50);
        }
        throw new AssertionError("server " + name + " was not healthy within " + START_TIMEOUT + " (" + lastProblem
                + "); its output:\n" + tail());
    }

    public int port() {
        return port;
    }

    /** The process's id: the launcher's, which becomes the server's JVM ({@code exec}). */
    public long pid() {
        return process.pid();
    }

    @Override
    public String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** The exit code of a server that has exited. */
    public int exitCode() {
        return process.exitValue();
    }

    /** {@code kill -9}: the JVM ends at once, with turns and writes in flight; returns when it is gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(EXIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("server " + name + " did not die after SIGKILL");
        }
    }

    /** {@code kill -STOP}: the process freezes as it is (a partition, a long pause), its sockets open. */
    public void pause() throws IOException, InterruptedException {
        signal("STOP");
    }

    /** {@code kill -CONT}: a paused process goes on where it was. */
    public void resume() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new AssertionError("kill -" + name + " " + process.pid() + " failed");
        }
    }

    /**
     * {@code kill -TERM}: the shutdown hook lets running turns finish (within FORGE_SHUTDOWN_GRACE_SECONDS), flushes the writer and closes.
     *
     * @return how long the process took to exit
     */
    public Duration stop() throws InterruptedException {
        long start = System.nanoTime();
        process.destroy();
        if (!process.waitFor(EXIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            AssertionError failure = new AssertionError("server " + name + " did not exit within " + EXIT_TIMEOUT
                    + " of SIGTERM; its output:\n" + tail());
            process.destroyForcibly();
            process.waitFor(EXIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            throw failure;
        }
        return Duration.ofNanos(System.nanoTime() - start);
    }

    /** Everything the child wrote so far (its log). */
    public String output() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }

    /** The end of the child's output, for failure messages. */
    public String tail() {
        String output = output();
        return "[" + log + "]\n" + (output.length() > 6000 ? "…" + output.substring(output.length() - 6000) : output);
    }

    public Path log() {
        return log;
    }

    @Override
    public String toString() {
        return "server " + name + " on port " + port;
    }

    /** Kills the child if it still runs (a test that failed half-way). */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(EXIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
