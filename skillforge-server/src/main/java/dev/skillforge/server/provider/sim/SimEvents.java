package dev.skillforge.server.provider.sim;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.core.transcript.StorableText;
import dev.skillforge.server.json.Json;
import io.javalin.http.Context;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Function;

/**
 * The body of a simulated stream, as Server-Sent Events in one wire format's framing (Anthropic names
 * each event in an {@code event:} line too), and the scripted mid-stream faults, which every format
 * applies alike: an error event in the format's own shape, a cut, keep-alive comments only (a stall),
 * or nothing at all (a silence).
 */
final class SimEvents {

    /** OpenAI ends an event with LF LF. */
    static final String LF = "\n\n";
    /** Google ends an event with CRLF CRLF. */
    static final String CRLF = "\r\n\r\n";

    private final OutputStream out;
    private final String eventEnd;
    private final Function<String, ObjectNode> errorEvent;

    private SimEvents(OutputStream out, String eventEnd, Function<String, ObjectNode> errorEvent) {
        this.out = out;
        this.eventEnd = eventEnd;
        this.errorEvent = errorEvent;
    }

    /**
     * Answers {@code ctx} with 200 and an event stream.
     *
     * @param eventEnd   what ends an event: {@link #LF} or {@link #CRLF}
     * @param errorEvent the format's error event with a message, sent for a {@link SimReply.StreamError}
     */
    static SimEvents open(Context ctx, String eventEnd, Function<String, ObjectNode> errorEvent) throws IOException {
        ctx.status(200);
        ctx.res().setContentType("text/event-stream");
        ctx.res().setHeader("Cache-Control", "no-cache");
        return new SimEvents(ctx.res().getOutputStream(), eventEnd, errorEvent);
    }

    /**
     * Sends one event carrying {@code data}. Half a surrogate pair (a reply may split an emoji between
     * two chunks, as models do) cannot be written in UTF-8: like a real provider's JSON encoder, the
     * simulation sends it as a JSON escape, which the client decodes back to that half.
     */
    void send(String data) throws IOException {
        out.write(("data: " + escapeLoneSurrogates(data) + eventEnd).getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** {@code json} with every unpaired surrogate (which can only sit inside a string) as a {@code \}{@code uXXXX} escape. */
    static String escapeLoneSurrogates(String json) {
        if (StorableText.firstBad(json) < 0) {
            return json;
        }
        StringBuilder out = new StringBuilder(json.length() + 12);
        for (int i = 0; i < json.length(); i++) {
            char c = json.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < json.length() && Character.isLowSurrogate(json.charAt(i + 1))) {
                out.append(c).append(json.charAt(++i));
            } else if (Character.isSurrogate(c)) {
                out.append(String.format("\\u%04X", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** Sends one event named {@code name} (an {@code event:} line) carrying {@code data}, as Anthropic frames its events. */
    void send(String name, String data) throws IOException {
        out.write(("event: " + name + "\n").getBytes(StandardCharsets.UTF_8));
        send(data);
    }

    /** Applies a mid-stream fault due after {@code sent} chunks; true when the stream must end here. */
    boolean faultNow(SimReply.Fault fault, int sent) throws IOException {
        switch (fault) {
            case SimReply.StreamError error when error.afterChunks() == sent -> {
                ObjectNode event = errorEvent.apply(error.message());
                if ("error".equals(Json.text(event, "type"))) {
                    send("error", Json.write(event)); // Anthropic's error event, named as it is
                } else {
                    send(Json.write(event));
                }
                return true;
            }
            case SimReply.Truncate truncate when truncate.afterChunks() == sent -> {
                return true;
            }
            case SimReply.Stall stall when stall.afterChunks() == sent -> {
                // Send only SSE comments (ignored by clients) until the client leaves, so the cut is seen.
                for (int i = 0; i < 600; i++) {
                    SimProviderServer.pause(Duration.ofMillis(100));
                    out.write((": stalled" + eventEnd).getBytes(StandardCharsets.UTF_8));
                    out.flush();
                }
                return true;
            }
            case SimReply.Silence silence when silence.afterChunks() == sent -> {
                SimProviderServer.pause(silence.duration());
                return true;
            }
            case SimReply.Hold hold when hold.afterChunks() == sent -> {
                try {
                    hold.release().await(1, java.util.concurrent.TimeUnit.MINUTES);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return false; // the rest of the answer follows
            }
            case null, default -> {
                return false;
            }
        }
    }
}
