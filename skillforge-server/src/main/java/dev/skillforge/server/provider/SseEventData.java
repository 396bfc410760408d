package dev.skillforge.server.provider;

import dev.skillforge.core.agent.ProviderException;

/**
 * Reads Server-Sent Events from a provider's body and returns each event's {@code data}, as the
 * SSE specification frames it: {@code data:} lines of one event joined by a newline, an event ended
 * by a blank line or the end of the body, comment lines and other fields ignored. Line endings (LF,
 * CRLF, CR) are handled by the line reader underneath. An event's data may hold at most
 * {@link #MAX_EVENT_CHARS} characters: a provider cannot make the server collect an endless event
 * out of many lines either.
 */
public final class SseDataReader {

    /** The most data one event may carry: 4 Mi characters, as much as the longest line. */
    public static final int MAX_EVENT_CHARS = 4 * 1024 * 1024;

    /** Where lines come from; {@code null} means the end of the body. */
    @FunctionalInterface
    public interface LineSource {
        String nextLine() throws ProviderException;
    }

    private final LineSource source;
    private boolean ended;

    public SseDataReader(LineSource source) {
        this.source = source;
    }

    /** The data of the next event, or {@code null} when the body has ended. */
    public String next() throws ProviderException {
        StringBuilder data = null;
        while (!ended) {
            String line = source.nextLine();
            if (line == null) {
                ended = true;
                break;
            }
            if (line.isEmpty()) {
                if (data != null) {
                    return data.toString();
                }
                continue;
            }
            if (line.startsWith("data:")) {
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
            }
        }
        return data == null ? null : data.toString();
    }
}
