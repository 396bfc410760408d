package dev.skillforge.server.http;

import dev.skillforge.server.conversation.ConversationChanges;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.conversation.RunElsewhere;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Streams events to one client as Server-Sent Events on the request's thread: a turn another instance runs
 * ({@code id: N} and {@code data: {json}} per event) and the conversation changes, with a {@code : ping} comment
 * when nothing happened for {@value #PING_MILLIS} ms. A run of this instance is followed by {@link SseFollower},
 * without a thread.
 *
 * <p>A client that left is noticed only when a write fails; the pings make sure one happens while
 * the run is quiet (waiting on the provider or a command), so a departure is seen within about two
 * ping intervals.
 */
final class SseWriter {

    static final long PING_MILLIS = 250;
    /** The changes stream is open as long as a page is: its pings are sparse. */
    private static final Duration CHANGES_PING = Duration.ofSeconds(5);
    private static final byte[] PING = ": ping\n\n".getBytes(StandardCharsets.UTF_8);

    private final OutputStream out;
    /** The frames of one write, its buffers kept for the next one: a follower makes no new buffer per event. */
    private final SseFrames batch = new SseFrames();

    public SseWriter(HttpServletResponse response) throws IOException {
        startEventStream(response);
        this.out = response.getOutputStream();
        out.flush(); // the headers go out now: the client knows the run started
    }

    /** The status and headers of an event stream, on {@code response} (not sent yet). */
    static void startEventStream(HttpServletResponse response) {
        response.setStatus(200);
        response.setContentType("text/event-stream;charset=utf-8");
        response.setHeader("Cache-Control", "no-cache");
        response.setHeader("X-Accel-Buffering", "no");
    }

    /**
     * Sends the events of a turn another instance runs, as they arrive, until it ends (or that instance
     * goes silent: the client reconnects with its {@code Last-Event-ID} and lands where it may go on).
     *
     * @return true when the turn's events ended, false when the client went away
     */
    public boolean follow(RunElsewhere run) {
        while (true) {
            Optional<List<RunElsewhere.Frame>> frames = run.next(Duration.ofMillis(PING_MILLIS));
            if (frames.isEmpty()) {
                return true;
            }
            for (RunElsewhere.Frame frame : frames.get()) {
                batch.add(frame.id(), frame.json());
            }
            if (!(frames.get().isEmpty() ? write(PING) : send(batch::sendTo))) {
                return false;
            }
        }
    }

    /**
     * Sends each change as {@code data: {"change", "id"}} until the client leaves or the changes end,
     * with a ping when nothing changed for a while (which is how a departed client is noticed).
     */
    public void follow(ConversationChanges.Subscription changes) throws InterruptedException {
        while (!changes.ended()) {
            Optional<ConversationChanges.Change> change = changes.next(CHANGES_PING);
            byte[] bytes = change.isEmpty() ? PING : ("data: " + Json.write(Json.object().put("change", change.get().change())
                    .put("id", change.get().id())) + "\n\n").getBytes(StandardCharsets.UTF_8);
            if (!write(bytes)) {
                return;
            }
        }
    }

    private boolean write(byte[] bytes) {
        return send(out -> out.write(bytes));
    }

    /** Writes and flushes; false when the client is gone (the write failed). */
    private boolean send(Output output) {
        try {
            output.writeTo(out);
            out.flush();
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private interface Output {
        void writeTo(OutputStream out) throws IOException;
    }
}
