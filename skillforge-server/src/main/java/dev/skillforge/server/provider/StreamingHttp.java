package dev.skillforge.server.provider;

import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.agent.ProviderException;
import dev.skillforge.core.transcript.StorableText;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.util.thread.Invocable;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;

import java.io.ByteArrayOutputStream;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.http.HttpHeaders;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A streaming HTTP call to a provider, its body read where it arrives.
 *
 * <p>Built on Jetty's {@link HttpClient} (HTTP/1.1, pooled connections), read as a {@link Content.Source}: the caller
 * waits for the headers, hands a listener over and waits for the body's end; each chunk is read and given to the
 * listener by the thread that learns it arrived (the client's selector thread, running the read as a non-blocking
 * task), which then asks for the next. A chunk costs no hand-off between threads. Before (docs/performance.md), the
 * caller's virtual thread read the body and was woken for every chunk (an unpark, a carrier, a park, and the
 * selector woken again to watch the socket); the JDK's client, before that, took three hand-offs per chunk.
 *
 * <p>Silence is bounded twice: the exchange's idle timeout fails a connection on which nothing arrives, and a
 * line must be whole within the idle time (a provider dripping bytes cannot hold a reader). A stop aborts the
 * exchange from any thread at once (the connection is closed, which the provider sees). Lines are cut in
 * linear time ({@link LineSplitter}) and none may pass {@link #MAX_LINE_BYTES}.
 */
public final class StreamingHttp {

    /** The longest line read from a provider's stream: 4 MiB, far above any real event (a chunk of text, usage, a signature). */
    public static final int MAX_LINE_BYTES = 4 * 1024 * 1024;

    /** How long a response closed once {@link Response#complete() complete} may take to end before its connection is closed. */
    static final long DRAIN_MILLIS = 2_000;

    private static final HttpClient CLIENT = startClient();

    private StreamingHttp() {
    }

    private static HttpClient startClient() {
        QueuedThreadPool threads = new QueuedThreadPool();
        threads.setName("provider-http");
        threads.setDaemon(true); // the client is never stopped: it must not keep the JVM alive
        // A selector per core: each runs the reading of its connections' chunks (the parsing and relaying behind it)
        // itself, so one selector would put every stream's per-chunk work on one thread.
        ClientConnector connector = new ClientConnector();
        connector.setSelectors(Runtime.getRuntime().availableProcessors());
        HttpClient client = new HttpClient(new HttpClientTransportOverHTTP(connector));
        client.setExecutor(threads);
        client.setScheduler(new ScheduledExecutorScheduler("provider-http-scheduler", true));
        client.setConnectTimeout(10_000);
        client.setIdleTimeout(30_000); // a pooled connection unused this long is closed, before a provider's keep-alive ends it
        client.setFollowRedirects(false);
        client.setMaxConnectionsPerDestination(100_000); // one per concurrent model call, as the JDK client had: no queue
        client.setMaxRequestsQueuedPerDestination(100_000);
        client.getContentDecoderFactories().clear(); // no Accept-Encoding: an event stream is read as it is sent
        try {
            client.start();
        } catch (Exception e) {
            throw new IllegalStateException("the provider HTTP client did not start", e);
        }
        return client;
    }

    /** Timeouts of one call: until the response headers arrive, and between two lines of the body. */
    public record Timeouts(Duration headers, Duration idle) {
    }

    /**
     * Sends {@code request} and waits for the response headers.
     *
     * @throws ProviderException on connection failure, timeout or cancellation
     */
    public static Response open(ProviderRequest request, Timeouts timeouts, Cancellation cancellation) throws ProviderException {
        String contentType = request.header("Content-Type");
        Request exchange = CLIENT.newRequest(request.uri()).method(HttpMethod.POST)
                .idleTimeout(timeouts.idle().toMillis(), TimeUnit.MILLISECONDS)
                .headers(headers -> request.headers().stream().filter(h -> !h.name().equalsIgnoreCase("Content-Type"))
                        .forEach(h -> headers.add(h.name(), h.value())))
                .body(new BytesRequestContent(contentType == null ? "application/json" : contentType, request.body()));
        Response response = new Response(exchange, timeouts.idle());
        exchange.onResponseHeaders(response::onHeaders).onResponseContentSource(response::onContentSource);
        exchange.send(response::onComplete);
        response.abortRegistration = cancellation.onCancel(response::abort);
        try {
            response.info = response.headers.get(timeouts.headers().toMillis(), TimeUnit.MILLISECONDS);
            return response;
        } catch (TimeoutException e) {
            response.abort();
            response.close();
            throw new ProviderException("provider_timeout",
                    "The provider sent no response headers within " + timeouts.headers().toSeconds() + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            response.close();
            throw new ProviderException("cancelled", "interrupted while waiting for the provider");
        } catch (ExecutionException e) {
            response.close();
            throw connectionFailure(e.getCause(), cancellation);
        } catch (CancellationException e) {
            response.close();
            throw connectionFailure(e, cancellation);
        }
    }

    private static ProviderException connectionFailure(Throwable cause, Cancellation cancellation) {
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cancellation.isCancelled()) {
            return new ProviderException("cancelled", "the run was stopped");
        }
        if (cause instanceof TimeoutException || cause instanceof SocketTimeoutException) {
            return new ProviderException("provider_timeout", "The provider did not answer in time: " + describe(cause), cause);
        }
        String what = cause instanceof ConnectException ? "could not connect" : "connection failed";
        return new ProviderException("provider_unreachable",
                "The provider is unreachable (" + what + ": " + describe(cause) + ")", cause);
    }

    private static String describe(Throwable t) {
        return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    }

    /**
     * Receives a response body's bytes as they arrive: one call at a time, in order, first on the thread that asked for
     * them, then on the thread of the provider client that delivers them. It must not block: it runs where the provider's
     * socket is read.
     */
    @FunctionalInterface
    public interface BodyListener {
        /** @return false to stop reading here: the rest of the body is not wanted */
        boolean accept(ByteBuffer bytes) throws ProviderException;
    }

    /** Receives a response body's lines, as {@link BodyListener} receives its bytes (and on the same threads). */
    @FunctionalInterface
    public interface LineListener {
        /** @return false to stop reading here: the rest of the body is not wanted */
        boolean accept(String line) throws ProviderException;
    }

    /**
     * An open response: status, headers, and the body, read once ({@link #read}, {@link #readLines} or {@link #readBody}).
     * Close it when done.
     *
     * <p>The body is read where Jetty's client delivers it: the caller hands a listener over and waits for the body's end,
     * and each chunk is read, and given to the listener, on the thread that learns it arrived (the client's selector,
     * running the read as a non-blocking task), which then asks for the next. Nobody is woken per chunk; the caller is
     * woken once, at the end.
     */
    public static final class Response implements AutoCloseable {
        private final Request exchange;
        private final Duration idle;
        private final CompletableFuture<org.eclipse.jetty.client.Response> headers = new CompletableFuture<>();
        /** Reads on from the thread that delivers the next chunk (Jetty calls it for content, the end or a failure). */
        private final Runnable readOn = Invocable.from(Invocable.InvocationType.NON_BLOCKING, this::pump);
        /** How the reading ended: true at the body's end, false when the listener stopped it; completed by the reading alone. */
        private final CompletableFuture<Boolean> outcome = new CompletableFuture<>();
        private final AtomicBoolean started = new AtomicBoolean();
        private volatile Content.Source source;
        private volatile BodyListener listener;
        /** The exchange is over (its body read to the end, or failed): {@link #failure} says which. */
        private volatile boolean exchangeOver;
        private volatile Throwable failure;
        private volatile boolean aborted;
        // Written by the reading (one thread at a time), read by the caller after the outcome: published by it.
        private boolean ended;
        // Touched by the caller alone.
        private boolean complete;
        private org.eclipse.jetty.client.Response info;
        private AutoCloseable abortRegistration;

        private Response(Request exchange, Duration idle) {
            this.exchange = exchange;
            this.idle = idle;
        }

        private void onHeaders(org.eclipse.jetty.client.Response response) {
            headers.complete(response);
        }

        private void onContentSource(org.eclipse.jetty.client.Response response, Content.Source contentSource) {
            source = contentSource;
            if (listener != null) {
                start();
            }
        }

        private void onComplete(Result result) {
            if (result.isFailed()) {
                failure = result.getFailure();
                headers.completeExceptionally(failure); // a failed connection ends the wait for headers at once
            }
            exchangeOver = true;
            if (listener != null) {
                start();
            }
        }

        public int status() {
            return info.getStatus();
        }

        /** The response headers (names as sent; looked up without regard to case). */
        public HttpHeaders headers() {
            Map<String, List<String>> map = new LinkedHashMap<>();
            for (HttpField field : info.getHeaders()) {
                map.computeIfAbsent(field.getName().toLowerCase(Locale.ROOT), name -> new ArrayList<>()).add(field.getValue());
            }
            return HttpHeaders.of(map, (name, value) -> true);
        }

        /**
         * Gives the body to {@code bodyListener} as it arrives and waits until it ended or the listener stopped it. No
         * call of the listener is under way when this returns or throws.
         *
         * @return true when the body was read to its end, false when the listener stopped
         * @throws ProviderException what the listener threw; {@code provider_timeout} when the exchange's idle
         *                           timeout passed, {@code provider_stream_error} when the connection broke,
         *                           {@code cancelled} when the call was stopped
         */
        public boolean read(BodyListener bodyListener) throws ProviderException {
            if (listener != null) {
                throw new IllegalStateException("the body is read once");
            }
            listener = bodyListener;
            if (source != null || exchangeOver) {
                start();
            }
            return awaitOutcome();
        }

        /**
         * Gives the body to {@code lineListener} line by line (without line endings: LF, CR or CRLF; the last line also
         * when no line break ends it) as {@link #read} gives bytes.
         *
         * @throws ProviderException also {@code provider_line_too_long} for a line past {@link #MAX_LINE_BYTES}, and
         *                           {@code provider_timeout} when no whole line arrived within the idle time (a
         *                           provider dripping bytes cannot hold a reader)
         */
        public boolean readLines(LineListener lineListener) throws ProviderException {
            LineSplitter lines = new LineSplitter(MAX_LINE_BYTES);
            long idleNanos = idle.toNanos();
            long[] lastLine = {System.nanoTime()};
            boolean toTheEnd = read(bytes -> {
                String line;
                while ((line = lines.take(bytes)) != null) {
                    lastLine[0] = System.nanoTime();
                    if (!lineListener.accept(line)) {
                        return false;
                    }
                }
                if (System.nanoTime() - lastLine[0] > idleNanos) {
                    throw new ProviderException("provider_timeout",
                            "The provider stream stalled: no whole line arrived for " + idle.toSeconds() + " s");
                }
                return true;
            });
            String last = toTheEnd ? lines.rest() : null;
            if (last != null && !lineListener.accept(last)) {
                return false;
            }
            return toTheEnd;
        }

        /**
         * Reads the rest of the body as text, at most {@code maxChars} (for error messages), whatever
         * its lines; line endings become LF.
         */
        public String readBody(int maxChars) throws ProviderException {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            long maxBytes = 3L * maxChars; // UTF-8 needs at most three bytes per char
            read(bytes -> {
                byte[] piece = new byte[(int) Math.min(bytes.remaining(), maxBytes - body.size())];
                bytes.get(piece);
                body.writeBytes(piece);
                return body.size() < maxBytes;
            });
            String text = body.toString(StandardCharsets.UTF_8).replace("\r\n", "\n").replace('\r', '\n');
            return StorableText.prefix(text, maxChars);
        }

        /** Starts the reading once both the listener and the source (or the exchange's end without one) are there. */
        private void start() {
            if (!started.compareAndSet(false, true)) {
                return;
            }
            if (source != null) {
                pump();
                return;
            }
            try { // a response without a body
                failIfFailed(failure);
                ended = true;
                outcome.complete(true);
            } catch (ProviderException e) {
                outcome.completeExceptionally(e);
            }
        }

        /**
         * Reads what has arrived, giving it to the listener, until nothing is there; then asks to be called again when
         * more is. Runs on one thread at a time: the caller's first, then the one that tells of the next chunk.
         */
        private void pump() {
            Content.Source from = source;
            try {
                while (true) {
                    if (aborted) {
                        throw new ProviderException("cancelled", "the run was stopped");
                    }
                    Content.Chunk next = from.read();
                    if (next == null) {
                        from.demand(readOn);
                        return;
                    }
                    if (Content.Chunk.isFailure(next)) {
                        failIfFailed(next.getFailure());
                    }
                    boolean wanted;
                    try {
                        ended = next.isLast();
                        wanted = !next.hasRemaining() || listener.accept(next.getByteBuffer());
                    } finally {
                        next.release();
                    }
                    if (!wanted || ended) {
                        outcome.complete(wanted);
                        return;
                    }
                }
            } catch (ProviderException | RuntimeException e) {
                outcome.completeExceptionally(e);
            } catch (Error e) {
                outcome.completeExceptionally(e); // the caller must not wait forever for a reading that is over
                throw e;
            }
        }

        private boolean awaitOutcome() throws ProviderException {
            try {
                return outcome.get();
            } catch (InterruptedException e) {
                abort(); // Jetty fails the source, which calls the reading back: it ends at its next chunk
                Thread.currentThread().interrupt();
                try {
                    outcome.join(); // not a moment before: the listener is the caller's again only then
                } catch (CompletionException | CancellationException over) {
                    // the call is over either way
                }
                throw new ProviderException("cancelled", "interrupted while reading the provider stream");
            } catch (ExecutionException e) {
                switch (e.getCause()) {
                    case ProviderException failed -> throw failed;
                    case RuntimeException failed -> throw failed;
                    case Error failed -> throw failed;
                    default -> throw new IllegalStateException(e.getCause());
                }
            }
        }

        private void failIfFailed(Throwable cause) throws ProviderException {
            if (aborted) {
                throw new ProviderException("cancelled", "the run was stopped");
            }
            if (cause == null) {
                return;
            }
            ended = true;
            if (cause instanceof TimeoutException) {
                throw new ProviderException("provider_timeout",
                        "The provider stream stalled: nothing arrived for " + idle.toSeconds() + " s");
            }
            throw new ProviderException("provider_stream_error",
                    "The provider connection broke mid-stream: " + describe(cause), cause);
        }

        /**
         * Says the answer is complete though the body may not have ended yet (OpenAI's {@code [DONE]}: the
         * body's last chunk follows at once): closing then reads the rest in the background, so the connection
         * goes back to the client's pool instead of being closed.
         */
        public void complete() {
            complete = true;
        }

        /** Aborts the exchange: the connection is closed, and a reading under way ends with {@code cancelled}. */
        void abort() {
            aborted = true;
            headers.completeExceptionally(new CancellationException("aborted"));
            exchange.abort(new CancellationException("the call was stopped"));
        }

        /**
         * Ends the reading. A body read to its end, or {@link #complete() complete} and ending within
         * {@link #DRAIN_MILLIS}, leaves its connection to the client's pool (a new connection per model call
         * costs a handshake); any other is aborted at once: the connection is closed, which the provider sees.
         */
        @Override
        public void close() {
            if (!ended && complete && !aborted && source != null) {
                if (!drain(source)) {
                    CLIENT.getScheduler().schedule(() -> {
                        if (!exchangeOver) {
                            abort();
                        }
                    }, DRAIN_MILLIS, TimeUnit.MILLISECONDS);
                }
            } else if (!ended && !exchangeOver) {
                abort();
            }
            try {
                if (abortRegistration != null) {
                    abortRegistration.close();
                }
            } catch (Exception ignored) {
                // removing a listener cannot fail
            }
        }

        /** Reads and drops what is left of the body, now and as it arrives; {@code true} when it ended now. */
        private static boolean drain(Content.Source rest) {
            while (true) {
                Content.Chunk next = rest.read();
                if (next == null) {
                    rest.demand(Invocable.from(Invocable.InvocationType.NON_BLOCKING, () -> drain(rest)));
                    return false;
                }
                next.release();
                if (next.isLast()) {
                    return true;
                }
            }
        }
    }
}
