package dev.skillforge.server.http;

import dev.skillforge.core.agent.Cancellation;
import io.javalin.http.Context;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.io.AbstractEndPoint;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.util.Callback;

import java.util.concurrent.CancellationException;

/**
 * Notices that a client has closed its connection while its request is worked on before anything is answered (its
 * attachments are being read). Jetty reads nothing from an HTTP/1.1 connection while it handles a request, so it would
 * learn of the close only at the first write; a watch asks to hear when the connection becomes readable, which, once
 * the request's body has been read, only its close makes it (clients send nothing more before the answer; one that
 * pipelines a second request is taken for gone). Close the watch before answering: Jetty reads the next request as
 * usual. A connection someone already reads (another protocol) is not watched.
 */
final class ClientWatch implements AutoCloseable {

    private final Cancellation gone = new Cancellation();
    private volatile EndPoint watched;
    private volatile boolean closing;
    private volatile boolean heard;

    private ClientWatch() {
    }

    /** Starts watching the connection of {@code ctx}'s request; call it once the body is read. */
    static ClientWatch start(Context ctx) {
        ClientWatch watch = new ClientWatch();
        ServletContextRequest request = ServletContextRequest.getServletContextRequest(ctx.req());
        if (request == null) {
            return watch;
        }
        request.addFailureListener(failure -> watch.gone.cancel("the request failed (" + failure + ")"));
        EndPoint endPoint = request.getConnectionMetaData().getConnection().getEndPoint();
        if (endPoint.tryFillInterested(Callback.from(watch::readable, watch::failed))) {
            watch.watched = endPoint;
        }
        return watch;
    }

    /** Cancelled when the client has gone. */
    Cancellation gone() {
        return gone;
    }

    private void readable() {
        heard = true;
        gone.cancel("the client closed the connection");
    }

    private void failed(Throwable failure) {
        heard = true;
        if (!closing) {
            gone.cancel("the connection failed (" + failure + ")");
        }
    }

    /** Stops watching: the connection is Jetty's to read again. */
    @Override
    public void close() {
        closing = true;
        if (watched instanceof AbstractEndPoint endPoint && !heard) {
            endPoint.getFillInterest().onFail(new CancellationException("no longer watched"));
        }
    }
}
