package dev.skillforge.server.provider;

import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.agent.ModelReply;
import dev.skillforge.core.agent.ProviderException;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * What every streaming provider client does around its own wire format, shared so the OpenAI-compatible
 * and the Gemini clients fail, retry and stop the same way:
 *
 * <ul>
 *   <li>{@link #post}: a JSON POST that asks for an event stream;</li>
 *   <li>{@link #open}: send it and wait for a 2xx answer. A 429 or 5xx answer, or a failed connection,
 *       is tried again as the {@link RetryPolicy} says (honouring {@code Retry-After}); this happens
 *       before any of the body was read, so never after text reached the client. Any other status
 *       fails at once with {@code provider_http_error} and the provider's own message;</li>
 *   <li>{@link #stream}: the body's events ({@link SseEventData}) to the wire format's {@link StreamParser} as they
 *       arrive, on the thread that reads them from the socket ({@link StreamingHttp.Response#readLines}).</li>
 * </ul>
 */
public final class ProviderCalls {

    /** How much of an error body is read for its message. */
    public static final int MAX_ERROR_BODY_CHARS = 8192;

    private ProviderCalls() {
    }

    /**
     * How one provider's calls go: its time limits and retries, its key (never in an error) and how its error bodies
     * read.
     */
    public record Wire(StreamingHttp.Timeouts timeouts, RetryPolicy retry, String apiKey, UnaryOperator<String> errorMessage) {
    }

    /**
     * Sends {@code request} ({@link #open}) and reads its answer: each event's data to {@code parser} until the body ends
     * or the parser says the stream is complete, then its end and its reply. The parser (and the model's stream listener
     * behind it) is called one event at a time, on the thread that reads the provider's socket, and not after this
     * returns. A failure never carries the key.
     */
    public static ModelReply stream(Wire wire, ProviderRequest request, Cancellation cancellation, StreamParser parser)
            throws ProviderException {
        try (StreamingHttp.Response response = open(request, wire.timeouts(), wire.retry(), cancellation, wire.errorMessage())) {
            SseEventData events = new SseEventData(parser::accept, wire.timeouts().idle());
            if (response.readLines(events)) {
                events.end();
            }
            if (parser.finish()) {
                response.complete();
            }
            return parser.reply();
        } catch (ProviderException e) {
            throw ProviderErrors.redacted(e, wire.apiKey());
        }
    }

    /** A POST of {@code body} (JSON) to {@code endpoint} accepting {@code text/event-stream}; add the credentials. */
    public static ProviderRequest.Builder post(URI endpoint, byte[] body) {
        return new ProviderRequest.Builder(endpoint, body)
                .header("Content-Type", "application/json")
                .header("Accept", "text/event-stream");
    }

    /**
     * Sends {@code request} until it is answered with a 2xx status, retrying as {@code retry} allows.
     * The caller reads and closes the returned response.
     *
     * @param errorMessage turns an error body into the provider's own message
     * @throws ProviderException {@code provider_http_error} (the last status and message once retries
     *                           are spent), {@code provider_unreachable}, {@code provider_timeout} or
     *                           {@code cancelled}
     */
    public static StreamingHttp.Response open(ProviderRequest request, StreamingHttp.Timeouts timeouts, RetryPolicy retry,
                                              Cancellation cancellation, UnaryOperator<String> errorMessage) throws ProviderException {
        for (int attempt = 0; ; attempt++) {
            StreamingHttp.Response response;
            try {
                response = StreamingHttp.open(request, timeouts, cancellation);
            } catch (ProviderException e) {
                if (e.code().equals("provider_unreachable") && attempt < retry.maxRetries()) {
                    pause(retry.delay(attempt + 1, null), cancellation);
                    continue;
                }
                throw e;
            }
            if (response.status() / 100 == 2) {
                return response;
            }
            try (response) {
                String message = errorMessage.apply(response.readBody(MAX_ERROR_BODY_CHARS));
                if (RetryPolicy.isRetryableStatus(response.status()) && attempt < retry.maxRetries()) {
                    pause(retry.delay(attempt + 1, response.headers()), cancellation);
                    continue;
                }
                throw new ProviderException("provider_http_error",
                        "The provider answered HTTP " + response.status() + ": " + message);
            }
        }
    }

    /** Waits before a retry; a stop ends the wait at once. */
    public static void pause(Duration delay, Cancellation cancellation) throws ProviderException {
        CountDownLatch stopped = new CountDownLatch(1);
        try (AutoCloseable ignored = cancellation.onCancel(stopped::countDown)) {
            stopped.await(delay.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception impossible) {
            throw new IllegalStateException(impossible);
        }
        if (cancellation.isCancelled() || Thread.currentThread().isInterrupted()) {
            throw new ProviderException("cancelled", "the run was stopped");
        }
    }
}
