package dev.skillforge.server;

import dev.skillforge.server.config.SecuritySettings;
import dev.skillforge.server.config.Settings;
import dev.skillforge.server.mcp.McpStdio;
import dev.skillforge.server.mcp.SkillForgeMcp;
import dev.skillforge.server.provider.ConfiguredProvider;
import dev.skillforge.server.provider.ProviderRegistry;
import dev.skillforge.server.provider.sim.DemoAgent;
import dev.skillforge.server.provider.sim.SimProviderServer;
import dev.skillforge.server.store.JdbcConversationStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.util.concurrent.CountDownLatch;
import java.util.function.UnaryOperator;

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

    public static void main(String[] args) throws Exception {
        String command = args.length == 0 ? "serve" : args[0];
        try {
            switch (command) {
                case "serve" -> serve();
                case "mcp" -> mcp();
                case "sim-provider" -> simProvider(args);
                case "help", "--help", "-h" -> System.out.print(USAGE);
                default -> fail("unknown command '" + command + "'\n" + USAGE);
            }
        } catch (IllegalArgumentException e) {
            fail(e.getMessage());
        }
    }

    private static void serve() throws Exception {
        Settings settings = Settings.fromEnvironment();
        SecuritySettings security = SecuritySettings.fromEnvironment();
        security.checkBinding(settings.host()); // refuses to start before anything is opened
        Files.createDirectories(settings.dataDir());
        JdbcConversationStore database = JdbcConversationStore.open(settings.dbUrl(), settings.dbUser(), settings.dbPassword(), settings.dataDir());
        ProviderRegistry providers = ProviderFactory.registry(settings);
        ConfiguredProvider provider = providers.defaultProvider();
        SkillForgeServer server;
        try {
            server = new SkillForgeServer(settings.host(), settings.port(), settings.dataDir(), settings.turnLimits(), providers,
                    database, UnaryOperator.identity(), security);
        } catch (RuntimeException e) { // a sandbox that does not work here, a port in use: what was opened is closed
            database.close();
            providers.close();
            throw e;
        }
        log.info("SkillForge listening on http://{}:{} with provider {} ({}){}; conversations in {}", settings.host(), server.port(),
                provider.name(), provider.modelName(), provider.simulated() ? ", a simulation: no model, no network" : "",
                database.database().description());
        log.info("Security: {}", security);
        awaitShutdown(server);
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
        Files.createDirectories(settings.dataDir());
        JdbcConversationStore database = JdbcConversationStore.open(settings.dbUrl(), settings.dbUser(), settings.dbPassword(), settings.dataDir());
        ProviderRegistry providers = ProviderFactory.registry(settings);
        SkillForgeCore core;
        try {
            core = new SkillForgeCore(settings.dataDir(), settings.turnLimits(), providers, database, UnaryOperator.identity(), security);
        } catch (RuntimeException e) { // a sandbox that does not work here: what was opened is closed
            database.close();
            providers.close();
            throw e;
        }
        SkillForgeMcp mcp = new SkillForgeMcp(core.conversations, core.skills, providers.names(), providers.defaultName());
        McpStdio stdio = McpStdio.start(mcp, System.in, protocol);
        ConfiguredProvider provider = providers.defaultProvider();
        log.info("SkillForge MCP on stdio with provider {} ({}){}; conversations in {}", provider.name(), provider.modelName(),
                provider.simulated() ? ", a simulation: no model, no network" : "", database.database().description());
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
                default -> throw new IllegalArgumentException("unknown option '" + args[i] + "'\n" + USAGE);
            }
        }
        SimProviderServer sim = SimProviderServer.start(host, port, new DemoAgent(ConfiguredProvider.DEMO_CHUNK_DELAY));
        log.info("Simulated provider at http://{}:{}/v1 (OpenAI wire format) and http://{}:{}/v1beta/models/{}:streamGenerateContent?alt=sse"
                + " (Gemini's), model {}", host, sim.port(), host, sim.port(), SimProviderServer.MODEL, SimProviderServer.MODEL);
        awaitShutdown(sim::close);
    }

    private static String value(String[] args, int i) {
        if (i >= args.length) {
            throw new IllegalArgumentException("option " + args[i - 1] + " needs a value");
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
            throw new IllegalArgumentException("--port must be a number from 0 to 65535, was " + text);
        }
    }

    /** Blocks until the JVM is asked to stop, then closes what was started. */
    private static void awaitShutdown(AutoCloseable resources) throws InterruptedException {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                resources.close();
            } catch (Exception e) {
                log.warn("shutdown: {}", e.toString());
            }
            stopped.countDown();
        }, "shutdown"));
        stopped.await();
    }

    private static void fail(String message) {
        System.err.println("skillforge: " + message);
        System.exit(2);
    }
}
