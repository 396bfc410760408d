package dev.skillforge.server.mcp;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * The lines of a stream, as bytes, each at most {@code maxBytes} long: a longer line is read to its end without being
 * kept and reported as {@link #TOO_LONG}. A line ends at {@code \n}; a {@code \r} before it is dropped.
 */
final class StdinLines {

    /** What {@link #next} answers for a line over the limit. */
    static final byte[] TOO_LONG = new byte[0];
    private static final int SMALL = 8 * 1024;

    private final InputStream in;
    private final int maxBytes;
    private final byte[] chunk = new byte[64 * 1024];
    private int at;
    private int end;
    /** The line so far; grown for a long line, and let go of after it. */
    private byte[] line = new byte[SMALL];
    private int length;

    StdinLines(InputStream in, int maxBytes) {
        this.in = in;
        this.maxBytes = maxBytes;
    }

    /** The next line, {@link #TOO_LONG}, or {@code null} at the end of the stream (a last line without {@code \n} counts). */
    byte[] next() throws IOException {
        length = 0;
        boolean tooLong = false;
        while (true) {
            if (at == end) {
                end = in.read(chunk);
                at = 0;
                if (end < 0) {
                    end = 0;
                    return length == 0 && !tooLong ? null : line(tooLong);
                }
            }
            int newline = at;
            while (newline < end && chunk[newline] != '\n') {
                newline++;
            }
            tooLong = tooLong || !keep(newline - at);
            at = newline;
            if (newline < end) {
                at++;
                return line(tooLong);
            }
        }
    }

    /** Adds {@code count} bytes of the chunk to the line, unless that makes it too long; false when it does. */
    private boolean keep(int count) {
        if (length + (long) count > maxBytes + 1L) {
            return false;
        }
        if (length + count > line.length) {
            line = Arrays.copyOf(line, (int) Math.min(maxBytes + 1L, Math.max(2L * line.length, length + count)));
        }
        System.arraycopy(chunk, at, line, length, count);
        length += count;
        return true;
    }

    private byte[] line(boolean tooLong) {
        int kept = length > 0 && line[length - 1] == '\r' ? length - 1 : length;
        byte[] result = tooLong || kept > maxBytes ? TOO_LONG : Arrays.copyOf(line, kept);
        if (line.length > SMALL) {
            line = new byte[SMALL];
        }
        return result;
    }
}
