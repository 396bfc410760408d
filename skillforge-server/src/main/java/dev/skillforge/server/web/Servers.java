package dev.skillforge.server.web;

import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.util.JavalinBindException;
import org.eclipse.jetty.io.ArrayByteBufferPool;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.function.Consumer;

/** How this project starts a Javalin (Jetty 12) server: virtual threads for blocking handlers, no banner. */
public final class Servers {

    /**
     * Connections not yet accepted that the kernel keeps waiting (it caps this at {@code net.core.somaxconn}):
     * Jetty's default asks for the JVM's 50, so a burst of a thousand clients connecting at once had most of
     * them reset.
     */
    static final int ACCEPT_QUEUE = 1024;

    /**
     * A response's buffer for small writes (Jetty's default 32 KB): an event stream holds one for its life, of direct
     * memory, and its frames are small; a batch larger than a quarter of it is written straight through.
     */
    static final int OUTPUT_BUFFER = 4096;

    /**
     * Buffers in buckets 1 KB apart (Jetty's default is 4 KB): an event stream holds its 4 KB response buffer for
     * its life, and every chunk it writes takes a small buffer for the chunk's header. In one 4 KB bucket, each of
     * those takes scanned past the thousand held buffers for a free one (7.3 % of the server's CPU samples at 1,000
     * streams, JFR; 2.9 % apart: docs/performance.md).
     */
    private static final int BUCKET_STEP = 1024;
    private static final int LARGEST_POOLED = 64 * 1024;

    /** How long {@link #stop} waits for Jetty to stop. */
    private static final Duration STOP_WAIT = Duration.ofSeconds(10);

    private static final Logger log = LoggerFactory.getLogger(Servers.class);

    private Servers() {
    }

    /**
     * Creates and starts a server on {@code host:port} ({@code 0}: any free port).
     *
     * @throws PortInUseException when the address is taken (nothing is left running)
     */
    public static Javalin start(String host, int port, Consumer<JavalinConfig> routes) {
        Javalin app = Javalin.create(config -> {
            config.concurrency.useVirtualThreads = true;
            config.startup.showJavalinBanner = false;
            config.startup.showOldJavalinVersionWarning = false;
            // Jetty keeps a trie of each connection's repeated request headers (1,024 slots: about 100 KB of heap per
            // open connection, most of what an active run held); a connection here carries few requests (an SSE
            // stream is one), so the cache saves little and costs a thousand streams 100 MB. Off.
            config.jetty.modifyHttpConfiguration(http -> {
                http.setHeaderCacheSize(0);
                http.setOutputBufferSize(OUTPUT_BUFFER);
            });
            config.jetty.addConnector((server, http) -> connector(server, http, host, port));
            routes.accept(config);
        });
        try {
            return app.start();
        } catch (JavalinBindException e) {
            app.stop(); // Jetty's threads and the half-made connector go too, so nothing keeps the JVM alive
            throw new PortInUseException(host, port, e);
        }
    }

    /** Javalin's connector (HTTP/1.1 on {@code host:port}) with this server's buffer pool and accept queue. */
    private static ServerConnector connector(Server server, HttpConfiguration http, String host, int port) {
        ByteBufferPool buffers = new ArrayByteBufferPool(0, BUCKET_STEP, LARGEST_POOLED);
        ServerConnector connector = new ServerConnector(server, null, null, buffers, -1, -1, new HttpConnectionFactory(http));
        connector.setHost(host);
        connector.setPort(port);
        connector.setAcceptQueueSize(ACCEPT_QUEUE);
        return connector;
    }

    /**
     * Stops {@code app}, waiting at most {@link #STOP_WAIT}. Jetty 12.1 can deadlock closing a connection whose
     * response write is pending (a client that stopped reading): the selector thread waits for the write's
     * cancellation, which is queued behind the close it runs (seen in a test run: a simulated provider streaming to
     * an abandoned connection). A stop that hangs is left behind with a warning rather than hanging its caller
     * (a test, or the process's shutdown).
     */
    public static void stop(Javalin app, String what) {
        Thread stopping = Thread.ofPlatform().daemon().name("stop-" + what).start(app::stop);
        try {
            stopping.join(STOP_WAIT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (stopping.isAlive()) {
            log.warn("{} did not stop within {} s (Jetty waits on a connection it is closing); going on without it",
                    what, STOP_WAIT.toSeconds());
        }
    }
}
