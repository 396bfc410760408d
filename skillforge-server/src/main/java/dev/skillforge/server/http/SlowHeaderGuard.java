package dev.skillforge.server.http;

import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.server.internal.HttpConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Closes a connection whose request headers take longer than a limit to arrive ("slowloris": a
 * byte every few seconds keeps the idle timeout from ever firing). Jetty's idle timeout covers a
 * silent client, its minimum request data rate covers a slow body; this covers slow headers.
 *
 * <p>Every connection is watched from when it opens: once a request has started (the parser has
 * left its start state) and is still in its headers after {@code limit}, the connection is closed
 * without an answer. Idle keep-alive connections (start state) and requests being served (past
 * the headers, e.g. a long event stream) are left alone. Reads Jetty's parser state from another
 * thread: a heuristic that may act one sweep late, never on a request past its headers.
 */
final class SlowHeaderGuard implements Connection.Listener, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SlowHeaderGuard.class);

    /** Since when a connection has been in the same request's headers. */
    private record Watch(long messagesIn, long sinceNanos) {
    }

    private static final Watch NOT_IN_HEADERS = new Watch(-1, 0);

    private final long limitNanos;
    private final Map<Connection, Watch> connections = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timer;

    SlowHeaderGuard(Duration limit) {
        this.limitNanos = limit.toNanos();
        this.timer = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("slow-header-guard").factory());
        long period = Math.max(100, Math.min(1000, limit.toMillis() / 4));
        timer.scheduleAtFixedRate(this::sweep, period, period, TimeUnit.MILLISECONDS);
    }

    @Override
    public void onOpened(Connection connection) {
        connections.put(connection, NOT_IN_HEADERS);
    }

    @Override
    public void onClosed(Connection connection) {
        connections.remove(connection);
    }

    private void sweep() {
        long now = System.nanoTime();
        connections.replaceAll((connection, watch) -> {
            if (!(connection instanceof HttpConnection http)) {
                return NOT_IN_HEADERS;
            }
            HttpParser parser = http.getParser();
            boolean inHeaders = parser.inHeaderState() && !parser.isStart();
            if (!inHeaders) {
                return NOT_IN_HEADERS;
            }
            long messages = http.getMessagesIn();
            if (watch.messagesIn() != messages || watch == NOT_IN_HEADERS) {
                return new Watch(messages, now);
            }
            if (now - watch.sinceNanos() > limitNanos) {
                LOG.info("Closing a connection from {}: its request headers took longer than {} ms", connection.getEndPoint().getRemoteSocketAddress(),
                        TimeUnit.NANOSECONDS.toMillis(limitNanos));
                connection.getEndPoint().close();
                return NOT_IN_HEADERS;
            }
            return watch;
        });
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
