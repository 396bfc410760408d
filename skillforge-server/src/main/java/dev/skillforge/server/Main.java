package dev.skillforge.server;

import dev.skillforge.server.access.TeamSettings;
import dev.skillforge.server.config.SecuritySettings;
import dev.skillforge.server.config.SkillSettings;
import dev.skillforge.server.config.Settings;
import dev.skillforge.server.trace.Tracing;
import dev.skillforge.server.error.ConfigurationException;
import dev.skillforge.server.mcp.McpStdio;
import dev.skillforge.server.mcp.SkillForgeMcp;
import dev.skillforge.server.provider.ConfiguredProvider;
import dev.skillforge.server.provider.ProviderRegistry;
import dev.skillforge.server.provider.sim.DemoAgent;
import dev.skillforge.server.provider.sim.SimProviderServer;
import dev.skillforge.server.store.JdbcConversationStore;
import dev.skillforge.server.web.PortInUseException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;

/** The command line: {@code serve} (the default), {@code mcp} and {@code sim-provider}. */
public final class Main {

    private static final Logger log = LoggerFactory.getLogger(Main.class);

    private static final String USAGE = """
            usage: skillforge serve                       run the server (settings from FORGE_* variables)
                   skillforge mcp                         serve MCP over stdin/stdout for a client that starts it (same settings)
                   skillforge sim-provider [--host H] [--port N]
                                                          run the simulated provider alone (OpenAI and Gemini wire formats)
            """;

    private Main() {
    }

    /**
     * Runs a command. Whatever fails at start ends the process with one line on stderr and a non-zero code
     * (2: a setting or the command line is wrong; 1: anything else, with its stack trace in the log), never
     * with a process that hangs on, serving nothing.
     */
    public static void main(String[] args) {
        // Jetty otherwise starts the platform MBean server (a third of a second) to learn the size of a reference.
        System.getProperties().putIfAbsent("org.eclipse.jetty.util.referencesPerCacheLine", "16");
        String command = args.length == 0 ? "serve" : args[0];
        if (!command.equals("sim-provider")) {
            DataFolder.ownerOnlyFromNowOn(); // before the database or any other file is made
        }
        try {
            switch (command) {
                case "serve" -> serve();
                case "mcp" -> mcp();
                case "sim-provider" -> simProvider(args);
                case "train" -> train();
                case "help", "--help", "-h" -> System.out.print(USAGE);
                default -> fail(2, "unknown command '" + command + "'\n" + USAGE);
            }
        } catch (PortInUseException e) {
            fail(2, e.getMessage() + ("serve".equals(command) ? ": set FORGE_PORT to another port (llama.cpp's server also takes 8080)"
                    : ": choose another with --port"));
        } catch (ConfigurationException e) {
            fail(2, e.getMessage());
        } catch (Exception | Error e) {
            log.error("start failed", e);
            fail(1, "could not start: " + e);
        }
    }

    /** Starts the server as the settings say. */
    private static SkillForgeServer start(Settings settings, SecuritySettings security, Optional<TeamSettings> team) throws Exception {
        security.checkBinding(settings.host(), team.isPresent()); // refuses to start before anything is opened
        // The providers (the demo's simulated one is a server of its own) start while the database opens.
        CompletableFuture<ProviderRegistry> providers = CompletableFuture.supplyAsync(() -> ProviderFactory.registry(settings),
                runnable -> Thread.ofPlatform().name("start-providers").start(runnable));
        Storage storage;
        try {
            storage = openStorage(settings);
        } catch (Exception | Error e) {
            providers.thenAccept(ProviderRegistry::close);
            throw e;
        }
        return SkillForgeServer.builder(settings.dataDir())
                .address(settings.host(), settings.port())
                .turnLimits(settings.turnLimits())
                .conversationTimings(settings.conversationTimings())
                .security(security)
                .team(team)
                .skillLimits(SkillSettings.fromEnvironment())
                .tracing(Tracing.fromEnvironment(System.getenv()))
                .storage(storage)
                .providers(started(providers, storage))
                .start();
    }

    /**
     * The training run of an ahead-of-time cache ({@code java -XX:AOTCacheOutput=FILE -jar skillforge.jar train}, which
     * the launcher runs after a build): the server starts as {@code serve} starts it, on a temporary folder with the
     * simulated provider, takes a conversation's turn and a stateless one and serves the page over real HTTP, and
     * stops. The JVM then keeps the classes this loaded and linked, and their profiles, for the next starts.
     */
    private static void train() throws Exception {
        Path data = Files.createTempDirectory("skillforge-train");
        try {
            Settings settings = Settings.from(Map.of("FORGE_DATA_DIR", data.toString(), "FORGE_PORT", "0", "FORGE_PROVIDER", "sim"));
            try (SkillForgeServer server = start(settings, SecuritySettings.from(Map.of()), Optional.empty())) {
                int answered = TrainingRun.exercise(server.port());
                log.info("Training run: {} requests answered", answered);
            }
        } finally {
            TemporaryFolders.delete(data);
        }
    }

    private static void serve() throws Exception {
        Settings settings = Settings.fromEnvironment();
        SecuritySettings security = SecuritySettings.fromEnvironment();
        Optional<TeamSettings> team = TeamSettings.from(System.getenv());
        warnOfDataFolder(settings);
        SkillForgeServer server = start(settings, security, team);
        log.info("{}", StartLine.serve("http://" + settings.host() + ":" + server.port(), server.providers().defaultProvider(), security, team,
                settings.dataDirectory(), server.storage().description()));
        if (server.core().tracing().enabled()) {
            log.info("Traces: exported over OTLP/HTTP as the OTEL_* variables say{}",
                    server.core().tracing().capturesContent() ? ", with prompts and answers (FORGE_TRACE_CONTENT)" : "");
        }
        Duration grace = settings.conversationTimings().shutdownGrace();
        awaitShutdown(() -> {
            log.info("Stopping: /readyz says so, no new turns start here; running turns may finish within {}", grace);
            if (!server.drain(grace)) {
                log.warn("Some turns did not finish within {} (FORGE_SHUTDOWN_GRACE_SECONDS): they are stopped now", grace);
            }
            server.close();
        });
    }

    /** A data folder that depends on the folder the server was started from: said before anything is made there. */
    private static void warnOfDataFolder(Settings settings) {
        settings.dataDirectory().warning().ifPresent(log::warn);
    }

    /** The providers started in the background, or their failure as it was thrown (the storage is closed then). */
    private static ProviderRegistry started(CompletableFuture<ProviderRegistry> providers, Storage storage) {
        try {
            return providers.join();
        } catch (CompletionException e) {
            storage.close();
            if (e.getCause() instanceof RuntimeException failure) {
                throw failure;
            }
            if (e.getCause() instanceof Error failure) {
                throw failure;
            }
            throw e;
        }
    }

    private static Storage openStorage(Settings settings) throws IOException {
        Files.createDirectories(settings.dataDir());
        return new JdbcStorage(JdbcConversationStore.open(settings.dbUrl(), settings.dbUser(), settings.dbPassword(), settings.dataDir()));
    }

    /**
     * MCP over stdio, for a client that starts SkillForge itself: the same data folder, database and
     * providers as {@code serve}, no HTTP. Stdout carries the protocol and nothing else: everything
     * printed otherwise goes to stderr, where the log is. Ends when the client closes stdin.
     */
    private static void mcp() throws Exception {
        OutputStream protocol = new FileOutputStream(FileDescriptor.out);
        System.setOut(System.err);
        Settings settings = Settings.fromEnvironment();
        SecuritySettings security = SecuritySettings.fromEnvironment();
        warnOfDataFolder(settings);
        SkillForgeCore core = SkillForgeCore.builder(settings.dataDir())
                .turnLimits(settings.turnLimits())
                .conversationTimings(settings.conversationTimings())
                .security(security)
                .skillLimits(SkillSettings.fromEnvironment())
                .tracing(Tracing.fromEnvironment(System.getenv()))
                .storage(openStorage(settings))
                .providers(ProviderFactory.registry(settings))
                .start();
        ProviderRegistry providers = core.providers();
        SkillForgeMcp mcp = new SkillForgeMcp(core.conversations(), core.turns(Optional.empty()), core.skills(), providers.names(), providers.defaultName());
        McpStdio stdio = McpStdio.start(mcp, System.in, protocol);
        log.info("{}", StartLine.mcp(providers.defaultProvider(), security, settings.dataDirectory(), core.storage().description()));
        Thread.ofPlatform().daemon().name("stdin-end").start(() -> {
            try {
                stdio.awaitEnd();
                log.info("MCP client closed stdin: stopping");
                System.exit(0); // the shutdown hook closes what was started
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        awaitShutdown(() -> {
            stdio.close();
            mcp.close();
            core.close();
        });
    }

    private static void simProvider(String[] args) throws Exception {
        String host = "127.0.0.1";
        int port = 8090;
        for (int i = 1; i < args.length; i++) {
            switch (args[i]) {
                case "--host" -> host = value(args, ++i);
                case "--port" -> port = parsePort(value(args, i + 1 < args.length ? ++i : i + 1));
                default -> throw new ConfigurationException("unknown option '" + args[i] + "'\n" + USAGE);
            }
        }
        SimProviderServer sim = SimProviderServer.start(host, port, new DemoAgent(ConfiguredProvider.DEMO_CHUNK_DELAY));
        log.info("Simulated provider at http://{}:{}/v1 (OpenAI wire format) and http://{}:{}/v1beta/models/{}:streamGenerateContent?alt=sse"
                + " (Gemini's), model {}", host, sim.port(), host, sim.port(), SimProviderServer.MODEL, SimProviderServer.MODEL);
        awaitShutdown(sim::close);
    }

    private static String value(String[] args, int i) {
        if (i >= args.length) {
            throw new ConfigurationException("option " + args[i - 1] + " needs a value");
        }
        return args[i];
    }

    private static int parsePort(String text) {
        try {
            int port = Integer.parseInt(text);
            if (port < 0 || port > 65535) {
                throw new NumberFormatException();
            }
            return port;
        } catch (NumberFormatException e) {
            throw new ConfigurationException("--port must be a number from 0 to 65535, was " + text);
        }
    }

    /** Blocks until the JVM is asked to stop (SIGTERM, Ctrl-C), then closes what was started, saying so. */
    private static void awaitShutdown(AutoCloseable resources) throws InterruptedException {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            long started = System.nanoTime();
            log.info("Asked to stop (SIGTERM or Ctrl-C): running turns end, every write is flushed, leases are given back");
            try {
                resources.close();
                log.info("Stopped in {} ms", (System.nanoTime() - started) / 1_000_000);
            } catch (Exception e) {
                log.warn("shutdown: {}", e.toString());
            }
            stopped.countDown();
        }, "shutdown"));
        stopped.await();
    }

    private static void fail(int code, String message) {
        System.err.println("skillforge: " + message);
        System.exit(code);
    }
}
