package dev.skillforge.server.http;

import java.io.IOException;
import java.io.InputStream;

/**
 * A request body read within its limit, whoever reads it: a read that would go past {@code maxBytes} throws
 * {@link TooLarge} instead, and a body of declared length ends at its last byte without another read of the request
 * (Jetty checks the minimum data rate before every read but the first, so a last read that would only find the end of
 * a small body failed it after a pause of some milliseconds on a busy server, though the whole body had come at once).
 */
final class LimitedBody extends InputStream {

    /** The body goes on past the limit. */
    static final class TooLarge extends IOException {
        TooLarge() {
            super(null, null);
        }
    }

    private final InputStream in;
    private final int maxBytes;
    /** How many bytes may be read in all: the declared length, or one past the limit (to see that the body goes on). */
    private final long readable;
    private long read;

    LimitedBody(InputStream in, long declared, int maxBytes) {
        this.in = in;
        this.maxBytes = maxBytes;
        this.readable = declared >= 0 ? Math.min(declared, maxBytes + 1L) : maxBytes + 1L;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] into, int offset, int length) throws IOException {
        if (length == 0) {
            return 0;
        }
        if (read >= readable) {
            return over();
        }
        int n = in.read(into, offset, (int) Math.min(length, readable - read));
        if (n > 0) {
            read += n;
            if (read > maxBytes) {
                return over();
            }
        }
        return n;
    }

    private int over() throws TooLarge {
        if (read > maxBytes) {
            throw new TooLarge();
        }
        return -1;
    }

    /**
     * Reads and drops what is left of the body, up to one byte past the limit, so a client still sending gets the
     * answer rather than a broken pipe; quietly stops at whatever ends the reading.
     */
    void drain() {
        byte[] scrap = new byte[8192];
        try {
            while (read(scrap, 0, scrap.length) >= 0) {
                // dropped
            }
        } catch (IOException endOfTheReading) {
            // over the limit, broken or too slow: nothing more to read
        }
    }

    /** Leaves the request's stream open: the server, not the reader, is done with it. */
    @Override
    public void close() {
    }
}
