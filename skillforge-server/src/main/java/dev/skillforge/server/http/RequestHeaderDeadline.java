package dev.skillforge.server.http;

import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.handler.EventsHandler;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Closes a connection whose next request does not reach the server, line and headers complete,
 * within a limit of the connection opening or of its previous response ending.
 *
 * <p>Why a deadline of its own: Jetty's idle timeout starts again with every byte read, and HTTP
 * lets a client send blank lines before a request line, which Jetty's parser skips. A client that
 * sent {@code \r\n} every few seconds, or its headers a byte at a time, held a connection forever,
 * and a thousand such clients shut everyone else out. Nothing a client sends moves this deadline:
 * it ends only when a request reaches the handlers. While a request is being handled (a body
 * arriving, an event stream for minutes) no deadline runs; Jetty's idle timeout and minimum data
 * rate cover that part.
 *
 * <p>Built on Jetty's public API only: a {@link Connection.Listener} for connections opening and
 * closing, an {@link EventsHandler} ({@link #handler()}, outermost) for requests starting and
 * completing, and the server's {@link Scheduler} for the deadlines.
 */
final class RequestHeaderDeadline implements Connection.Listener {

    private static final Logger LOG = LoggerFactory.getLogger(RequestHeaderDeadline.class);

    /** One connection's state; guarded by itself. */
    private static final class Waiting {
        /** Requests being handled now (more than one only for an instant, as one ends and the next starts). */
        private int handling;
        /** Counts deadlines set and cancelled: a deadline that fires acts only if it is still the current one. */
        private long generation;
        private Scheduler.Task deadline;
        /** When the connection began to wait for its next request ({@link System#nanoTime}), while it waits. */
        private long waitingSince;
    }

    private final long limitMillis;
    private final Scheduler scheduler;
    private final Map<Connection, Waiting> connections = new ConcurrentHashMap<>();
    private final Handler.Wrapper handler = new EventsHandler() {
        @Override
        protected void onBeforeHandling(Request request) {
            started(request.getConnectionMetaData().getConnection());
        }

        @Override
        protected void onComplete(Request request, int status, HttpFields headers, Throwable failure) {
            completed(request.getConnectionMetaData().getConnection());
        }
    };

    RequestHeaderDeadline(Duration limit, Scheduler scheduler) {
        this.limitMillis = limit.toMillis();
        this.scheduler = scheduler;
    }

    /** The handler that tells this deadline when requests start and complete: the server's outermost. */
    Handler.Wrapper handler() {
        return handler;
    }

    @Override
    public void onOpened(Connection connection) {
        Waiting waiting = new Waiting();
        connections.put(connection, waiting);
        synchronized (waiting) {
            startDeadline(connection, waiting);
        }
    }

    @Override
    public void onClosed(Connection connection) {
        Waiting waiting = connections.remove(connection);
        if (waiting != null) {
            synchronized (waiting) {
                cancelDeadline(waiting);
            }
        }
    }

    private void started(Connection connection) {
        Waiting waiting = connections.get(connection);
        if (waiting != null) {
            synchronized (waiting) {
                waiting.handling++;
                cancelDeadline(waiting);
            }
        }
    }

    private void completed(Connection connection) {
        Waiting waiting = connections.get(connection);
        if (waiting != null) {
            synchronized (waiting) {
                if (--waiting.handling == 0) {
                    startDeadline(connection, waiting);
                }
            }
        }
    }

    /**
     * The connection, other than {@code except}, that has waited longest for its next request (since it opened or
     * its last response ended), or {@code null} when every other connection is handling a request.
     */
    Connection longestWaiting(Connection except) {
        Connection longest = null;
        long since = 0;
        for (Map.Entry<Connection, Waiting> entry : connections.entrySet()) {
            Waiting waiting = entry.getValue();
            synchronized (waiting) {
                if (entry.getKey() != except && waiting.deadline != null
                        && (longest == null || waiting.waitingSince - since < 0)) {
                    longest = entry.getKey();
                    since = waiting.waitingSince;
                }
            }
        }
        return longest;
    }

    private void startDeadline(Connection connection, Waiting waiting) {
        waiting.waitingSince = System.nanoTime();
        long generation = ++waiting.generation;
        waiting.deadline = scheduler.schedule(() -> expire(connection, waiting, generation), limitMillis, TimeUnit.MILLISECONDS);
    }

    private static void cancelDeadline(Waiting waiting) {
        waiting.generation++;
        if (waiting.deadline != null) {
            waiting.deadline.cancel();
            waiting.deadline = null;
        }
    }

    private void expire(Connection connection, Waiting waiting, long generation) {
        synchronized (waiting) {
            if (waiting.generation != generation || waiting.handling > 0) {
                return; // a request arrived meanwhile
            }
            waiting.deadline = null;
        }
        LOG.debug("Closing a connection from {}: no complete request within {} ms", connection.getEndPoint().getRemoteSocketAddress(),
                limitMillis);
        connection.getEndPoint().close();
    }
}
