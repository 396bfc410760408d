package dev.skillforge.server.http;

import dev.skillforge.core.agent.Cancellation;
import io.javalin.http.Context;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.io.AbstractEndPoint;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;

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
        watch.arm(request.getConnectionMetaData().getConnection().getEndPoint());
        return watch;
    }

    /** Cancelled when the client has gone. */
    Cancellation gone() {
        return gone;
    }

    /** Asks to hear of {@code endPoint} becoming readable, unless someone else already reads it. */
    private synchronized void arm(EndPoint endPoint) {
        watched = endPoint; // before asking: a registration that fails calls failed() at once, which clears it
        if (!endPoint.tryFillInterested(onReadable) && watched == endPoint) {
            watched = null;
        }
    }

    private void readable() {
        String goneBecause;
        synchronized (this) {
            if (closed || watched == null) {
                return;
            }
            EndPoint endPoint = watched;
            watched = null;
            int read;
            try {
                read = endPoint.fill(BufferUtil.allocate(1)); // Jetty's socket end point answers a reset with -1 too
            } catch (Exception e) {
                read = -1;
            }
            if (read == 0) {
                arm(endPoint);
                return;
            }
            if (read > 0) {
                tookABite = true;
                return;
            }
            goneBecause = "the client closed the connection";
        }
        gone.cancel(goneBecause); // outside the lock: what a cancellation runs may take its time
    }

    private void failed(Throwable failure) {
        synchronized (this) {
            watched = null;
            if (closed) {
                return;
            }
        }
        gone.cancel("the connection failed (" + failure + ")");
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
            // The early request lost its first byte to the watch: this header must reach Jetty, or it would read the
            // rest of that request as a malformed one. Nothing between here and the answer resets the headers.
            ctx.header("Connection", "close");
        }
    }
}
