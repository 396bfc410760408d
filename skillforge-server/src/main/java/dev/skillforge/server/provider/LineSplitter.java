package dev.skillforge.server.provider;

import dev.skillforge.core.agent.ProviderException;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Cuts a body that arrives as byte buffers into lines ended by LF, CR or CRLF (also a CRLF split
 * between two buffers), decoded as UTF-8. Each byte is looked at once, so reading is linear in the
 * body's length however long a line is (the JDK's line subscriber rescans a line for every buffer
 * that extends it: quadratic). A line longer than the cap is refused, not collected.
 */
final class LineSplitter {

    private final int maxLineBytes;
    private byte[] line = new byte[1024];
    private int length;
    /** The last line ended with CR: an LF right after it is the rest of that line ending. */
    private boolean afterCr;

    LineSplitter(int maxLineBytes) {
        this.maxLineBytes = maxLineBytes;
    }

    /**
     * Reads {@code buffer} up to the end of the next line and returns that line without its ending;
     * {@code null} when the buffer ran out first (what was read is kept for the next buffer).
     *
     * @throws ProviderException {@code provider_line_too_long} when the line passes the cap
     */
    String take(ByteBuffer buffer) throws ProviderException {
        while (buffer.hasRemaining()) {
            byte b = buffer.get();
            if (afterCr) {
                afterCr = false;
                if (b == '\n') {
                    continue;
                }
            }
            if (b == '\n' || b == '\r') {
                afterCr = b == '\r';
                return finishLine();
            }
            if (length == maxLineBytes) {
                throw new ProviderException("provider_line_too_long", "The provider sent a line longer than " + maxLineBytes
                        + " bytes, the most this server reads as one line of a stream: the stream was closed");
            }
            if (length == line.length) {
                line = Arrays.copyOf(line, Math.min(line.length * 2, maxLineBytes));
            }
            line[length++] = b;
        }
        return null;
    }

    /** The last line of a body that does not end with a line break, or {@code null}. */
    String rest() {
        return length == 0 ? null : finishLine();
    }

    private String finishLine() {
        String text = new String(line, 0, length, StandardCharsets.UTF_8);
        length = 0;
        return text;
    }
}
