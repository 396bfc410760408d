package dev.skillforge.server.http;

import dev.skillforge.core.agent.Cancellation;
import io.javalin.http.Context;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.io.AbstractEndPoint;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CancellationException;

/**
 * Notices that a client has closed its connection while its request is worked on before anything is answered (its
 * attachments are being read). Jetty reads nothing from an HTTP/1.1 connection while it handles a request, so it would
 * learn of the close only at the first write; a watch asks to hear when the connection becomes readable and then reads
 * one byte: the end of the stream means the client has gone, nothing (a wake-up Jetty allows without data) means watch
 * on, and a byte means the client is there and sending its next request early (pipelining) — that byte is the watch's
 * now, so the answer closes the connection and the client sends that request again on a new one, as HTTP lets a client
 * whose pipelined requests went unanswered. Close the watch before answering: Jetty reads the next request as usual. A
 * connection someone already reads (another protocol) is not watched.
 */
final class ClientWatch implements AutoCloseable {

    private final Cancellation gone = new Cancellation();
    private final Context ctx;
    private final Callback onReadable = Callback.from(this::readable, this::failed);
    /** The connection while it is watched; null once closed, gone or found still there. Guarded by {@code this}. */
    private EndPoint watched;
    private boolean closed;
    private boolean tookABite;

    private ClientWatch(Context ctx) {
        this.ctx = ctx;
    }

    /** Starts watching the connection of {@code ctx}'s request; call it once the body is read. */
    static ClientWatch start(Context ctx) {
        ClientWatch watch = new ClientWatch(ctx);
        ServletContextRequest request = ServletContextRequest.getServletContextRequest(ctx.req());
        if (request == null) {
            return watch;
        }
        request.addFailureListener(failure -> watch.gone.cancel("the request failed (" + failure + ")"));
        EndPoint endPoint = request.getConnectionMetaData().getConnection().getEndPoint();
        synchronized (watch) {
            if (endPoint.tryFillInterested(watch.onReadable)) {
                watch.watched = endPoint;
            }
        }
        return watch;
    }

    /** Cancelled when the client has gone. */
    Cancellation gone() {
        return gone;
    }

    private synchronized void readable() {
        if (closed || watched == null) {
            return;
        }
        ByteBuffer bite = BufferUtil.allocate(1);
        int read;
        try {
            read = watched.fill(bite);
        } catch (IOException e) {
            watched = null;
            gone.cancel("the connection failed (" + e + ")");
            return;
        }
        if (read < 0) {
            watched = null;
            gone.cancel("the client closed the connection");
        } else if (read == 0) {
            if (!watched.tryFillInterested(onReadable)) {
                watched = null;
            }
        } else {
            watched = null;
            tookABite = true;
        }
    }

    private synchronized void failed(Throwable failure) {
        watched = null;
        if (!closed) {
            gone.cancel("the connection failed (" + failure + ")");
        }
    }

    /** Stops watching: the connection is Jetty's to read again (or closes after the answer if the watch read from it). */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
            if (watched instanceof AbstractEndPoint endPoint) {
                endPoint.getFillInterest().onFail(new CancellationException("no longer watched"));
            }
            watched = null;
        }
        if (tookABite) {
            ctx.header("Connection", "close");
        }
    }
}
