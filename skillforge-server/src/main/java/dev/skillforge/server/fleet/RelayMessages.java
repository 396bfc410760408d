package dev.skillforge.server.fleet;

import dev.skillforge.server.conversation.RunElsewhere;
import dev.skillforge.server.store.Notifications;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a relay sends to a following instance's own channel, each message led by the stream it belongs to:
 * {@code STREAM hello} (the turn is here, its events follow), {@code STREAM ping} (nothing new, still here),
 * {@code STREAM end} (the turn's last event was sent), {@code STREAM none} (the turn has ended and the follower
 * had seen all of it), and {@code STREAM frame ID PART/PARTS TEXT}: one event in the wire form the API streams,
 * cut into parts that fit a notification.
 */
final class RelayMessages {

    static final String HELLO = "hello";
    static final String PING = "ping";
    static final String END = "end";
    static final String NONE = "none";
    private static final String FRAME = "frame ";

    private RelayMessages() {
    }

    /** A message of one word. */
    static String word(long stream, String word) {
        return stream + " " + word;
    }

    /** An event's messages, its JSON cut into parts under the payload limit. */
    static List<String> frame(long stream, long id, String json) {
        List<String> parts = parts(json, Notifications.MAX_PAYLOAD_BYTES);
        List<String> messages = new ArrayList<>(parts.size());
        for (int i = 0; i < parts.size(); i++) {
            messages.add(stream + " " + FRAME + id + " " + (i + 1) + "/" + parts.size() + " " + parts.get(i));
        }
        return messages;
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

    /** A message as received: its stream, and the rest (a word, or a frame's part). */
    record Received(long stream, String body) {

        /** The message, unless it is not one of a relay's. */
        static Optional<Received> parse(String payload) {
            int space = payload.indexOf(' ');
            if (space < 1) {
                return Optional.empty();
            }
            try {
                return Optional.of(new Received(Long.parseLong(payload.substring(0, space)), payload.substring(space + 1)));
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        }

        boolean isFrame() {
            return body.startsWith(FRAME);
        }
    }

    /** Puts the events of one stream together again from their parts, which arrive in order. */
    static final class Assembly {

        private final StringBuilder partial = new StringBuilder();

        /**
         * Takes the body of a {@code frame} message.
         *
         * @return the event once its last part arrived; empty before that, or when the part is malformed
         */
        Optional<RunElsewhere.Frame> add(String body) {
            int idEnd = body.indexOf(' ', FRAME.length());
            int partEnd = idEnd < 0 ? -1 : body.indexOf(' ', idEnd + 1);
            String[] part = partEnd < 0 ? new String[0] : body.substring(idEnd + 1, partEnd).split("/");
            if (part.length != 2) {
                partial.setLength(0);
                return Optional.empty();
            }
            try {
                long id = Long.parseLong(body.substring(FRAME.length(), idEnd));
                if (part[0].equals("1")) {
                    partial.setLength(0);
                }
                partial.append(body, partEnd + 1, body.length());
                if (!part[0].equals(part[1])) {
                    return Optional.empty();
                }
                RunElsewhere.Frame frame = new RunElsewhere.Frame(id, partial.toString());
                partial.setLength(0);
                return Optional.of(frame);
            } catch (NumberFormatException e) {
                partial.setLength(0);
                return Optional.empty();
            }
        }
    }
}
