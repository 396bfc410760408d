package dev.skillforge.server.http;

import org.eclipse.jetty.io.Connection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Keeps room for a new client when the server holds the most connections it may: a connection opening that makes
 * {@code max} closes the connection that has waited longest for its next request ({@link RequestHeaderDeadline}:
 * silent since it opened, sending blank lines, or idle after a response), as nginx reuses its idle connections when
 * it runs out. Without it, twelve clients holding their share each (1,200 connections where 1,000 are served) kept
 * every other client, a health check included, waiting in the accept queue until a header deadline closed one
 * (8 to 10 s). A connection handling a request (a body arriving, an event stream) is never closed here; only when
 * every one is does Jetty stop accepting until one ends.
 */
final class ConnectionRoom implements Connection.Listener {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionRoom.class);

    private final int max;
    private final RequestHeaderDeadline waiting;
    private final AtomicInteger open = new AtomicInteger();
    /** Making room now: logged once when it starts, again only after the server was well below the limit. */
    private final AtomicBoolean full = new AtomicBoolean();

    ConnectionRoom(int max, RequestHeaderDeadline waiting) {
        this.max = max;
        this.waiting = waiting;
    }

    @Override
    public void onOpened(Connection connection) {
        if (open.incrementAndGet() < max) {
            return;
        }
        Connection longest = waiting.longestWaiting(connection);
        if (longest == null) {
            return;
        }
        if (full.compareAndSet(false, true)) {
            LOG.warn("{} connections open, the most the server holds: closing those that waited longest for a request to make room", max);
        }
        LOG.debug("Closing a connection from {} to make room: it waited longest for a request", longest.getEndPoint().getRemoteSocketAddress());
        longest.getEndPoint().close();
    }

    @Override
    public void onClosed(Connection connection) {
        if (open.decrementAndGet() < max * 9 / 10) {
            full.set(false);
        }
    }
}
