package dev.skillforge.server.http;

import dev.skillforge.server.http.ConnectionLimits;
import io.javalin.config.JavalinConfig;
import org.eclipse.jetty.server.AbstractConnector;
import org.eclipse.jetty.server.ConnectionLimit;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;

import java.util.concurrent.atomic.AtomicReference;

/**
 * Jetty's limits for idle, slow and oversized requests: connections idle for
 * {@link ConnectionLimits#idleTimeout()} are closed; a connection's next request line and headers must
 * be complete within {@link ConnectionLimits#headerTimeout()} of its opening or its previous response,
 * blank lines or not ({@link RequestHeaderDeadline}), and stay under {@value #MAX_REQUEST_HEADER_BYTES}
 * bytes; request bodies must flow at {@value #MIN_REQUEST_BYTES_PER_SECOND} bytes/s at least; at most
 * {@code FORGE_MAX_CONNECTIONS} connections are open at once, the one that waited longest for a request
 * closed to make room for a new one ({@link ConnectionRoom}), and at most {@link ConnectionLimits#maxPerClient()} from
 * one client ({@link ClientConnectionLimit}); Jetty's own
 * error answers are JSON ({@link JsonErrorHandler}). The server sends no version header.
 */
final class JettyLimits {

    static final int MAX_REQUEST_HEADER_BYTES = 16 * 1024;
    static final long MIN_REQUEST_BYTES_PER_SECOND = 1024;

    private JettyLimits() {
    }

    static void apply(JavalinConfig config, ConnectionLimits connections) {
        config.jetty.modifyHttpConfiguration(http -> {
            http.setSendServerVersion(false);
            http.setSendXPoweredBy(false);
            http.setRequestHeaderSize(MAX_REQUEST_HEADER_BYTES);
            http.setMinRequestDataRate(MIN_REQUEST_BYTES_PER_SECOND);
        });
        AtomicReference<Server> server = new AtomicReference<>();
        AtomicReference<RequestHeaderDeadline> deadline = new AtomicReference<>();
        config.jetty.modifyServer(jetty -> {
            server.set(jetty);
            jetty.setErrorHandler(new JsonErrorHandler());
            jetty.addBean(new ConnectionLimit(connections.max(), jetty));
            deadline.set(new RequestHeaderDeadline(connections.headerTimeout(), jetty.getScheduler()));
            jetty.setHandler(deadline.get().handler()); // outermost: Javalin puts its own handlers inside it
        });
        ClientConnectionLimit perClient = new ClientConnectionLimit(connections.maxPerClient());
        config.events.serverStarting(() -> {
            ConnectionRoom room = new ConnectionRoom(connections.max(), deadline.get());
            for (Connector connector : server.get().getConnectors()) {
                if (connector instanceof AbstractConnector c) {
                    c.setIdleTimeout(connections.idleTimeout().toMillis());
                    c.addBean(perClient);
                    c.addBean(deadline.get());
                    c.addBean(room);
                }
            }
        });
    }
}
