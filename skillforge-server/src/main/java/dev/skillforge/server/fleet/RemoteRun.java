package dev.skillforge.server.fleet;

import dev.skillforge.server.store.Notifications;
import dev.skillforge.server.store.StoreException;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A turn followed on another instance ({@link Fleet#follow}): its events as they arrive, each with
 * its id and in the wire form, ending with the turn. Read by one thread.
 */
public final class RemoteRun implements AutoCloseable {

    /** One event: its id (the SSE {@code id:}) and its JSON. */
    public record Frame(long id, String json) {
    }

    /** No word from the other instance for this long: it is gone (killed, or cut off from the database). */
    static final Duration SILENCE = Duration.ofSeconds(3);

    private final Notifications.Subscription subscription;
    private final ArrayDeque<String> pending = new ArrayDeque<>();
    private final StringBuilder partial = new StringBuilder();
    private long lastWordNanos = System.nanoTime();
    private boolean ended;

    RemoteRun(Notifications.Subscription subscription) {
        this.subscription = subscription;
    }

    /** Waits for the other instance's first word; false if none came within {@code wait}, or it said there is nothing to follow. */
    boolean awaitAnswer(Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        while (pending.isEmpty()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            pending.addAll(subscription.poll(Duration.ofNanos(left)));
        }
        lastWordNanos = System.nanoTime();
        return !pending.peek().equals("none");
    }

    /**
     * The next events, waiting up to {@code wait}: an empty list means nothing new yet.
     *
     * @return empty when the turn ended, or the other instance went silent for {@link #SILENCE}
     */
    public Optional<List<Frame>> next(Duration wait) {
        if (ended) {
            return Optional.empty();
        }
        try {
            if (pending.isEmpty()) {
                pending.addAll(subscription.poll(wait));
            }
        } catch (StoreException e) {
            ended = true;
            return Optional.empty();
        }
        List<Frame> frames = new ArrayList<>();
        if (!pending.isEmpty()) {
            lastWordNanos = System.nanoTime();
        }
        while (!pending.isEmpty()) {
            String message = pending.poll();
            if (message.equals("end")) {
                ended = true;
                return frames.isEmpty() ? Optional.empty() : Optional.of(frames);
            }
            if (message.startsWith("frame ")) {
                readPart(message).ifPresent(frames::add);
            }
            // "hello" and "ping" only say the other instance is there
        }
        if (frames.isEmpty() && System.nanoTime() - lastWordNanos > SILENCE.toNanos()) {
            ended = true;
            return Optional.empty();
        }
        return Optional.of(frames);
    }

    /** {@code frame ID PART/PARTS TEXT}: the frame once its last part arrived. */
    private Optional<Frame> readPart(String message) {
        int idEnd = message.indexOf(' ', 6);
        int partEnd = message.indexOf(' ', idEnd + 1);
        long id = Long.parseLong(message.substring(6, idEnd));
        String[] part = message.substring(idEnd + 1, partEnd).split("/");
        partial.append(message, partEnd + 1, message.length());
        if (!part[0].equals(part[1])) {
            return Optional.empty();
        }
        Frame frame = new Frame(id, partial.toString());
        partial.setLength(0);
        return Optional.of(frame);
    }

    /** {@code text} cut into pieces of at most {@code maxBytes} UTF-8 bytes each, never inside a character. */
    static List<String> parts(String text, int maxBytes) {
        List<String> parts = new ArrayList<>();
        int start = 0;
        while (start < text.length() || parts.isEmpty()) {
            int end = start;
            int bytes = 0;
            while (end < text.length()) {
                int codePoint = text.codePointAt(end);
                int size = new String(Character.toChars(codePoint)).getBytes(StandardCharsets.UTF_8).length;
                if (bytes + size > maxBytes) {
                    break;
                }
                bytes += size;
                end += Character.charCount(codePoint);
            }
            parts.add(text.substring(start, end));
            start = end;
        }
        return parts;
    }

    @Override
    public void close() {
        subscription.close();
    }
}
