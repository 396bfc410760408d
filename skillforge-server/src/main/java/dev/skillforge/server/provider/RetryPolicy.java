package dev.skillforge.server.provider;

import java.net.http.HttpHeaders;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * When to try a provider call again: only for 429 and 5xx answers or a failed connection, only
 * while nothing has reached the client, at most {@code maxRetries} times, waiting as the provider's
 * {@code Retry-After} says (capped) or with exponential backoff.
 */
public record RetryPolicy(int maxRetries, Duration baseDelay, Duration maxDelay) {

    public static final RetryPolicy DEFAULT = new RetryPolicy(2, Duration.ofMillis(500), Duration.ofSeconds(20));

    public static boolean isRetryableStatus(int status) {
        return status == 429 || status >= 500;
    }

    /** The wait before retry number {@code retry} (1-based). */
    public Duration delay(int retry, HttpHeaders headers) {
        Duration backoff = baseDelay.multipliedBy(1L << Math.min(retry - 1, 10));
        Duration wait = headers == null ? backoff : retryAfter(headers).orElse(backoff);
        return wait.compareTo(maxDelay) > 0 ? maxDelay : wait;
    }

    /** {@code Retry-After} as seconds or as an HTTP date. */
    static Optional<Duration> retryAfter(HttpHeaders headers) {
        return headers.firstValue("retry-after").flatMap(value -> {
            String v = value.strip();
            try {
                return Optional.of(Duration.ofSeconds(Math.max(0, Long.parseLong(v))));
            } catch (NumberFormatException notSeconds) {
                try {
                    ZonedDateTime at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME);
                    Duration until = Duration.between(ZonedDateTime.now(at.getZone()), at);
                    return Optional.of(until.isNegative() ? Duration.ZERO : until);
                } catch (DateTimeParseException notDate) {
                    return Optional.empty();
                }
            }
        });
    }
}
