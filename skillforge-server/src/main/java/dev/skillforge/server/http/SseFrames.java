package dev.skillforge.server.http;

import dev.skillforge.core.agent.AgentEvent;

import java.io.IOException;
import java.io.OutputStream;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The SSE frames of one write ({@code id: N\ndata: JSON\n\n} each), built in buffers a follower keeps: the event's JSON
 * is written by {@link EventJson} into this writer's characters and encoded to UTF-8 into its bytes, with no string or
 * array made per event. Lone surrogates become {@code ?}, as {@link String#getBytes} makes them. Not thread-safe: one
 * per follower.
 */
final class SseFrames extends Writer {

    private static final String FRAME_END = "\n\n";

    private final CharsetEncoder utf8 = StandardCharsets.UTF_8.newEncoder()
            .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
    private char[] chars = new char[1024];
    /** {@link #chars} as the encoder reads them, wrapped again only when they grow. */
    private CharBuffer charView = CharBuffer.wrap(chars);
    private int length;
    private ByteBuffer bytes = ByteBuffer.allocate(3 * 1024);

    /** Appends the frame of event {@code id}. */
    void add(long id, AgentEvent event) {
        startFrame(id);
        EventJson.write(event, this);
        put(FRAME_END);
    }

    /** Appends the frame of event {@code id} whose JSON is already written (a turn another instance runs). */
    void add(long id, String json) {
        startFrame(id);
        put(json);
        put(FRAME_END);
    }

    /** Sends the frames added since the last send, in one write, and starts over. */
    void sendTo(OutputStream out) throws IOException {
        utf8.reset();
        int most = (int) Math.min(Integer.MAX_VALUE - 8, 3L * length); // UTF-8: at most 3 bytes per UTF-16 char
        if (bytes.capacity() < most) {
            bytes = ByteBuffer.allocate(most);
        }
        bytes.clear();
        charView.limit(length).position(0);
        utf8.encode(charView, bytes, true);
        utf8.flush(bytes);
        length = 0;
        out.write(bytes.array(), 0, bytes.position());
    }

    @Override
    public void write(char[] source, int offset, int count) {
        ensure(count);
        System.arraycopy(source, offset, chars, length, count);
        length += count;
    }

    @Override
    public void write(String source, int offset, int count) {
        ensure(count);
        source.getChars(offset, offset + count, chars, length);
        length += count;
    }

    @Override
    public void write(int c) {
        ensure(1);
        chars[length++] = (char) c;
    }

    @Override
    public void flush() {
    }

    /** Nothing to release: the generator that writes an event closes its target, and the frames go on after it. */
    @Override
    public void close() {
    }

    private void startFrame(long id) {
        put("id: ");
        writeDigits(id);
        put("\ndata: ");
    }

    private void put(String text) {
        write(text, 0, text.length());
    }

    /** A frame id's decimal digits, with no string made for them. */
    private void writeDigits(long id) {
        int digits = 1;
        for (long rest = id / 10; rest != 0; rest /= 10) {
            digits++;
        }
        ensure(digits + 1);
        if (id < 0) {
            chars[length++] = '-';
        }
        for (int at = length + digits - 1; at >= length; at--) {
            chars[at] = (char) ('0' + Math.abs(id % 10));
            id /= 10;
        }
        length += digits;
    }

    private void ensure(int more) {
        if (length + more > chars.length) {
            chars = Arrays.copyOf(chars, Math.max(length + more, 2 * chars.length));
            charView = CharBuffer.wrap(chars);
        }
    }
}
