package dev.skillforge.server.provider;

import dev.skillforge.core.agent.ProviderException;

import java.time.Duration;

/**
 * Collects Server-Sent Events from a provider's body, line by line as they arrive, and gives each event's {@code data}
 * to a listener, as the SSE specification frames it: {@code data:} lines of one event joined by a newline, an event
 * ended by a blank line or the end of the body, comment lines and other fields ignored. Line endings are handled by the
 * line reader underneath. An event's data may hold at most {@link #MAX_EVENT_CHARS} characters: a provider cannot make
 * the server collect an endless event out of many lines either. Keep-alive comments ({@code : ping}) prove the
 * connection, not progress: when only they arrive for longer than the idle time, reading fails with
 * {@code provider_timeout}.
 */
public final class SseEventData implements StreamingHttp.LineListener {

    /** The most data one event may carry: 4 Mi characters, as much as the longest line. */
    public static final int MAX_EVENT_CHARS = 4 * 1024 * 1024;

    /** Receives each event's data. */
    @FunctionalInterface
    public interface DataListener {
        /** @return false once the stream is complete: nothing after it is wanted */
        boolean accept(String data) throws ProviderException;
    }

    private final DataListener listener;
    private final Duration idle;
    private long lastData = System.nanoTime();
    private StringBuilder data;

    public SseEventData(DataListener listener, Duration idle) {
        this.listener = listener;
        this.idle = idle;
    }

    @Override
    public boolean accept(String line) throws ProviderException {
        if (!line.startsWith("data:")) {
            if (line.isEmpty() && data != null) {
                return flush();
            }
            // A comment, another field or a blank line with no event before it: the connection lives, the answer does not move.
            if (System.nanoTime() - lastData > idle.toNanos()) {
                throw new ProviderException("provider_timeout", "The provider sent only keep-alives for "
                        + idle.toSeconds() + " s: no data");
            }
            return true;
        }
        lastData = System.nanoTime();
        String value = line.substring(line.startsWith("data: ") ? 6 : 5);
        if (data == null) {
            data = new StringBuilder(value);
        } else {
            data.append('\n').append(value);
        }
        if (data.length() > MAX_EVENT_CHARS) {
            throw new ProviderException("provider_event_too_long", "The provider sent an event of more than "
                    + MAX_EVENT_CHARS + " characters of data, the most this server reads as one event: the stream was closed");
        }
        return true;
    }

    /**
     * The body ended: gives the last event's data when no blank line ended it.
     *
     * @return what the listener answered, or true when there was nothing left
     */
    public boolean end() throws ProviderException {
        return data == null || flush();
    }

    private boolean flush() throws ProviderException {
        String event = data.toString();
        data = null;
        return listener.accept(event);
    }
}
