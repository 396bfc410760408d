package dev.skillforge.server.provider;

import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.agent.ProviderException;
import dev.skillforge.core.transcript.StorableText;

import java.io.ByteArrayOutputStream;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A streaming HTTP call to a provider, read line by line on the caller's thread.
 *
 * <p>Built on the JDK's {@link HttpClient}: the body's byte buffers arrive in a queue (one list at a
 * time: the connection is read as fast as the lines are), so the reader can wait with an idle
 * timeout and a stop can abort the exchange from any thread at once (cancelling the subscription
 * closes the connection, which the provider sees). Lines are cut in linear time ({@link LineSplitter})
 * and none may pass {@link #MAX_LINE_BYTES}: a provider cannot make the server collect or rescan an
 * endless line.
 */
public final class StreamingHttp {

    /** The longest line read from a provider's stream: 4 MiB, far above any real event (a chunk of text, usage, a signature). */
    public static final int MAX_LINE_BYTES = 4 * 1024 * 1024;

    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(10))
            .executor(Executors.newVirtualThreadPerTaskExecutor())
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();

    private StreamingHttp() {
    }

    /** Timeouts of one call: until the response headers arrive, and between two lines of the body. */
    public record Timeouts(Duration headers, Duration idle) {
    }

    /**
     * Sends {@code request} and waits for the response headers.
     *
     * @throws ProviderException on connection failure, timeout or cancellation
     */
    public static Response open(HttpRequest request, Timeouts timeouts, Cancellation cancellation) throws ProviderException {
        Response response = new Response(timeouts.idle());
        CompletableFuture<HttpResponse<Void>> exchange = CLIENT.sendAsync(request, response::onHeaders);
        exchange.whenComplete((ignored, failure) -> {
            if (failure != null) {
                response.headers.completeExceptionally(failure); // a failed connection ends the wait for headers at once
                response.arrived.add(new Failure(failure));
            }
        });
        AutoCloseable abort = cancellation.onCancel(() -> {
            response.abort(); // first: a reader woken by the cancelled exchange must see a stop, not a broken connection
            exchange.cancel(true);
        });
        response.abortRegistration = abort;
        try {
            response.info = response.headers.get(timeouts.headers().toMillis(), TimeUnit.MILLISECONDS);
            return response;
        } catch (TimeoutException e) {
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
        } finally {
            if (response.info == null) {
                exchange.cancel(true);
            }
        }
    }

    private static ProviderException connectionFailure(Throwable cause, Cancellation cancellation) {
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cancellation.isCancelled()) {
            return new ProviderException("cancelled", "the run was stopped");
        }
        if (cause instanceof HttpTimeoutException) {
            return new ProviderException("provider_timeout", "The provider did not answer in time: " + cause.getMessage(), cause);
        }
        String what = cause instanceof ConnectException ? "could not connect" : "connection failed";
        return new ProviderException("provider_unreachable",
                "The provider is unreachable (" + what + ": " + describe(cause) + ")", cause);
    }

    private static String describe(Throwable t) {
        return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    }

    private record Failure(Throwable cause) {
    }

    private static final Object END = new Object();
    private static final Object ABORTED = new Object();

    /**
     * An open response: status, headers, and the body as lines of at most {@link #MAX_LINE_BYTES}
     * bytes. Close it when done.
     */
    public static final class Response implements Flow.Subscriber<List<ByteBuffer>>, AutoCloseable {
        private final Duration idle;
        private final CompletableFuture<HttpResponse.ResponseInfo> headers = new CompletableFuture<>();
        /** What the connection delivered: lists of buffers, then END, a Failure or ABORTED. */
        private final BlockingQueue<Object> arrived = new LinkedBlockingQueue<>();
        private final Deque<ByteBuffer> unread = new ArrayDeque<>();
        private final LineSplitter lines = new LineSplitter(MAX_LINE_BYTES);
        private ByteBuffer current = ByteBuffer.allocate(0);
        private boolean ended;
        private volatile Flow.Subscription subscription;
        private volatile boolean aborted;
        private HttpResponse.ResponseInfo info;
        private AutoCloseable abortRegistration;

        private Response(Duration idle) {
            this.idle = idle;
        }

        private HttpResponse.BodySubscriber<Void> onHeaders(HttpResponse.ResponseInfo responseInfo) {
            headers.complete(responseInfo);
            return HttpResponse.BodySubscribers.fromSubscriber(this);
        }

        public int status() {
            return info.statusCode();
        }

        public HttpHeaders headers() {
            return info.headers();
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
                String line = take(current);
                if (line != null) {
                    return line;
                }
                ByteBuffer next = nextBuffer(deadline);
                if (next == null) {
                    return lines.rest();
                }
                current = next;
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
            ByteBuffer buffer = current;
            while (buffer != null && body.size() < maxBytes) {
                byte[] piece = new byte[(int) Math.min(buffer.remaining(), maxBytes - body.size())];
                buffer.get(piece);
                body.writeBytes(piece);
                buffer = buffer.hasRemaining() ? buffer : nextBuffer(deadline);
            }
            String text = body.toString(StandardCharsets.UTF_8).replace("\r\n", "\n").replace('\r', '\n');
            return StorableText.prefix(text, maxChars);
        }

        /** The next buffer of the body, waiting until {@code deadline}; {@code null} at its end. */
        private ByteBuffer nextBuffer(long deadline) throws ProviderException {
            while (true) {
                ByteBuffer buffer = unread.poll();
                if (buffer != null) {
                    return buffer;
                }
                if (ended) {
                    return null;
                }
                Object item = awaitArrival(deadline);
                if (item == END) {
                    ended = true;
                } else {
                    @SuppressWarnings("unchecked")
                    List<ByteBuffer> buffers = (List<ByteBuffer>) item;
                    unread.addAll(buffers);
                    Flow.Subscription s = subscription;
                    if (s != null) {
                        s.request(1);
                    }
                }
            }
        }

        /** What the connection delivers next: a list of buffers or END; a failure, a stop or a stall throws. */
        private Object awaitArrival(long deadline) throws ProviderException {
            Object item;
            try {
                item = arrived.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                abort();
                throw new ProviderException("cancelled", "interrupted while reading the provider stream");
            }
            if (item == null) {
                abort();
                throw new ProviderException("provider_timeout",
                        "The provider stream stalled: nothing arrived for " + idle.toSeconds() + " s");
            }
            if (item == ABORTED || aborted) {
                throw new ProviderException("cancelled", "the run was stopped");
            }
            if (item instanceof Failure failure) {
                arrived.add(failure); // stay failed for later calls
                throw new ProviderException("provider_stream_error",
                        "The provider connection broke mid-stream: " + describe(failure.cause()), failure.cause());
            }
            return item;
        }

        /** Aborts the exchange: the connection is closed and a waiting reader wakes up. */
        void abort() {
            aborted = true;
            headers.completeExceptionally(new CancellationException("aborted"));
            Flow.Subscription s = subscription;
            if (s != null) {
                s.cancel();
            }
            arrived.add(ABORTED);
        }

        @Override
        public void close() {
            abort();
            try {
                if (abortRegistration != null) {
                    abortRegistration.close();
                }
            } catch (Exception ignored) {
                // removing a listener cannot fail
            }
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            if (aborted) {
                s.cancel();
            } else {
                s.request(1);
            }
        }

        @Override
        public void onNext(List<ByteBuffer> buffers) {
            arrived.add(buffers);
        }

        @Override
        public void onError(Throwable throwable) {
            arrived.add(new Failure(throwable));
        }

        @Override
        public void onComplete() {
            arrived.add(END);
        }
    }
}
