package dev.skillforge.server.provider;

import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.agent.ProviderException;
import dev.skillforge.core.transcript.StorableText;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpMethod;
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
import java.util.concurrent.locks.LockSupport;

/**
 * A streaming HTTP call to a provider, read line by line on the caller's thread.
 *
 * <p>Built on Jetty's {@link HttpClient} (HTTP/1.1, pooled connections), read as a {@link Content.Source}: the
 * caller's thread reads and parses the socket itself, and when nothing is there it asks to be woken and parks.
 * The selector thread only wakes it, running nothing else (the wake-up is non-blocking), so a chunk costs one
 * hand-off. The JDK's client, used before, took three per chunk (its selector, a task on its executor, the
 * reader's queue) and serialised every stream through one selector thread (docs/performance.md).
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
        HttpClient client = new HttpClient();
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
     * An open response: status, headers, and the body as lines of at most {@link #MAX_LINE_BYTES}
     * bytes. Close it when done. Read by one thread.
     */
    public static final class Response implements AutoCloseable {
        private final Request exchange;
        private final Duration idle;
        private final CompletableFuture<org.eclipse.jetty.client.Response> headers = new CompletableFuture<>();
        private final LineSplitter lines = new LineSplitter(MAX_LINE_BYTES);
        /**
         * The source's answer to a demand (content, its end or a failure: Jetty calls back for each): wakes the
         * reader from the selector thread without a hand-off to another thread. A reader that asked waits for this
         * answer, not for any wake-up: woken by the exchange's end instead, it would ask again while its demand
         * is pending, which Jetty refuses ({@code IllegalStateException}: turns failed at random in CI).
         */
        private final Runnable demanded = Invocable.from(Invocable.InvocationType.NON_BLOCKING, () -> {
            demandPending = false;
            wake();
        });
        private volatile boolean demandPending;
        private volatile Content.Source source;
        /** The exchange is over (its body read to the end, or failed): {@link #failure} says which. */
        private volatile boolean exchangeOver;
        private volatile Throwable failure;
        private volatile boolean aborted;
        private volatile boolean signalled;
        private volatile Thread reader;
        private Content.Chunk chunk;
        private boolean ended;
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
            wake();
        }

        private void onComplete(Result result) {
            if (result.isFailed()) {
                failure = result.getFailure();
                headers.completeExceptionally(failure); // a failed connection ends the wait for headers at once
            }
            exchangeOver = true;
            wake();
        }

        private void wake() {
            signalled = true;
            Thread waiting = reader;
            if (waiting != null) {
                LockSupport.unpark(waiting);
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
         * The next line of the body without its line terminator (LF, CR or CRLF), or {@code null}
         * at the end of the body.
         *
         * @throws ProviderException when no whole line arrives within the idle timeout, a line passes
         *                           {@link #MAX_LINE_BYTES} ({@code provider_line_too_long}), the
         *                           connection breaks, or the call was cancelled
         */
        public String nextLine() throws ProviderException {
            long deadline = System.nanoTime() + idle.toNanos();
            while (true) {
                if (chunk != null) {
                    String line = take(chunk.getByteBuffer());
                    if (line != null) {
                        return line;
                    }
                    releaseChunk();
                }
                if (!nextChunk(deadline)) {
                    return lines.rest();
                }
            }
        }

        /** The next line from {@code buffer}, or {@code null}; a line past the cap closes the connection. */
        private String take(ByteBuffer buffer) throws ProviderException {
            try {
                return lines.take(buffer);
            } catch (ProviderException tooLong) {
                abort();
                throw tooLong;
            }
        }

        /**
         * Reads the rest of the body as text, at most {@code maxChars} (for error messages), whatever
         * its lines; line endings become LF.
         */
        public String readBody(int maxChars) throws ProviderException {
            long deadline = System.nanoTime() + idle.toNanos();
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            long maxBytes = 3L * maxChars; // UTF-8 needs at most three bytes per char
            while (body.size() < maxBytes && (chunk != null || nextChunk(deadline))) {
                ByteBuffer buffer = chunk.getByteBuffer();
                byte[] piece = new byte[(int) Math.min(buffer.remaining(), maxBytes - body.size())];
                buffer.get(piece);
                body.writeBytes(piece);
                if (!buffer.hasRemaining()) {
                    releaseChunk();
                }
            }
            String text = body.toString(StandardCharsets.UTF_8).replace("\r\n", "\n").replace('\r', '\n');
            return StorableText.prefix(text, maxChars);
        }

        /**
         * Makes {@link #chunk} the body's next chunk with bytes in it, waiting until {@code deadline}; {@code false}
         * at the body's end.
         */
        private boolean nextChunk(long deadline) throws ProviderException {
            while (!ended) {
                if (aborted) {
                    throw new ProviderException("cancelled", "the run was stopped");
                }
                Content.Source from = source;
                Content.Chunk next = from == null ? null : from.read();
                if (next == null) {
                    if (from == null && exchangeOver) {
                        failIfFailed(failure);
                        ended = true; // a response without a body
                        return false;
                    }
                    awaitWake(from, deadline);
                    continue;
                }
                if (Content.Chunk.isFailure(next)) {
                    failIfFailed(next.getFailure());
                }
                ended = next.isLast();
                if (next.hasRemaining()) {
                    chunk = next;
                    return true;
                }
                next.release();
            }
            return false;
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
         * Parks until the source has something (or the exchange ends, fails or is stopped). No timer: silence
         * ends with the exchange's idle timeout, which fails it and wakes the reader.
         */
        private void awaitWake(Content.Source from, long deadline) throws ProviderException {
            if (System.nanoTime() - deadline > 0) {
                abort();
                throw new ProviderException("provider_timeout",
                        "The provider stream stalled: no whole line arrived for " + idle.toSeconds() + " s");
            }
            signalled = false;
            reader = Thread.currentThread();
            if (from != null) {
                demandPending = true; // before: the source may answer at once, on this thread
                from.demand(demanded);
            }
            while (!aborted && (from != null ? demandPending : !(signalled || exchangeOver || source != null))) {
                LockSupport.park(this);
                if (Thread.interrupted()) {
                    abort();
                    throw new ProviderException("cancelled", "interrupted while reading the provider stream");
                }
            }
            reader = null;
        }

        private void releaseChunk() {
            if (chunk != null) {
                chunk.release();
                chunk = null;
            }
        }

        /**
         * Says the answer is complete though the body may not have ended yet (OpenAI's {@code [DONE]}: the
         * body's last chunk follows at once): closing then reads the rest in the background, so the connection
         * goes back to the client's pool instead of being closed.
         */
        public void complete() {
            complete = true;
        }

        /** Aborts the exchange: the connection is closed and a waiting reader wakes up. */
        void abort() {
            aborted = true;
            headers.completeExceptionally(new CancellationException("aborted"));
            exchange.abort(new CancellationException("the call was stopped"));
            wake();
        }

        /**
         * Ends the reading. A body read to its end, or {@link #complete() complete} and ending within
         * {@link #DRAIN_MILLIS}, leaves its connection to the client's pool (a new connection per model call
         * costs a handshake); any other is aborted at once: the connection is closed, which the provider sees.
         */
        @Override
        public void close() {
            releaseChunk();
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
