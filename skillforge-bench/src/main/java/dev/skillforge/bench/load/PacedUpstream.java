package dev.skillforge.bench.load;

import dev.skillforge.server.web.Servers;
import io.javalin.Javalin;
import io.javalin.http.Context;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The load benchmark's model: an OpenAI-compatible chat-completions endpoint on loopback, in its own
 * process (so its CPU is not the server's), paced like a real model: the response headers and the role
 * chunk at once, the first text {@value #FIRST_TOKEN_MILLIS} ms later, then a text chunk every
 * {@value #CHUNK_GAP_MILLIS} ms, {@value #CHUNKS} text chunks of a few characters in all, a finish chunk, usage, {@code [DONE]}.
 *
 * <p>An agent turn is two calls: when the last message is not shell output the answer ends in
 * {@code <shell>skill list</shell>}; when it is, the answer is plain text. The chunks are made once,
 * so the upstream spends next to nothing per chunk. Prints {@code port N} on stdout when it listens.
 */
public final class PacedUpstream {

    static final int FIRST_TOKEN_MILLIS = 50;
    static final int CHUNK_GAP_MILLIS = 20;
    static final int CHUNKS = 20;
    static final String SHELL_OUTPUT = "[Shell Output]";
    /** Every user message of the load client starts with this, so the last one can be told from shell output. */
    static final String USER_MARK = "load-turn ";
    /** Conversations named {@code hold-…} get their first text {@value #HOLD_MILLIS} ms late: runs held open to be weighed. */
    static final String HOLD_MARK = " of hold-";
    static final int HOLD_MILLIS = 8_000;

    /** Twenty chunks ending in a command: what the first call of a turn answers. */
    static final List<String> COMMAND_ANSWER = List.of("Let", " me", " look", " at", " the", " skills", " you", " have",
            " so", " far", ",", " then", " I", "'ll", " answer", ".\n\n", "<shell>", "skill", " list", "</shell>");
    /** Twenty chunks of plain text: what the second call answers. */
    static final List<String> TEXT_ANSWER = List.of("You", " have", " no", " skills", " yet", ".", " Ask", " me", " to",
            " learn", " one", " and", " I", " will", " write", " it", " down", " for", " you", ".");

    private static final byte[] EVENT_END = "\n\n".getBytes(StandardCharsets.UTF_8);

    private final AtomicLong ids = new AtomicLong();
    private final Javalin app;

    private PacedUpstream(int port) {
        app = Servers.start("127.0.0.1", port, config -> config.routes.post("/v1/chat/completions", this::chat));
    }

    public static void main(String[] args) throws InterruptedException {
        PacedUpstream upstream = new PacedUpstream(args.length > 0 ? Integer.parseInt(args[0]) : 0);
        System.out.println("port " + upstream.app.port());
        System.out.flush();
        Thread.currentThread().join(); // until the benchmark kills the process
    }

    private void chat(Context ctx) throws IOException {
        String body = ctx.body();
        boolean afterCommand = body.lastIndexOf(SHELL_OUTPUT) > body.lastIndexOf(USER_MARK);
        List<String> chunks = afterCommand ? TEXT_ANSWER : COMMAND_ANSWER;
        String id = "chatcmpl-paced-" + ids.incrementAndGet();
        long start = System.nanoTime() + (!afterCommand && body.contains(HOLD_MARK) ? 1_000_000L * HOLD_MILLIS : 0);
        ctx.status(200).contentType("text/event-stream");
        ctx.res().setHeader("Cache-Control", "no-cache");
        OutputStream out = ctx.res().getOutputStream();
        send(out, chunk(id, "\"role\":\"assistant\",\"content\":\"\"", "null"));
        for (int i = 0; i < chunks.size(); i++) {
            waitUntil(start + 1_000_000L * (FIRST_TOKEN_MILLIS + (long) CHUNK_GAP_MILLIS * i));
            send(out, chunk(id, "\"content\":\"" + escape(chunks.get(i)) + "\"", "null"));
        }
        send(out, chunk(id, "", "\"stop\""));
        send(out, "{\"id\":\"" + id + "\",\"object\":\"chat.completion.chunk\",\"model\":\"paced-1\",\"choices\":[],"
                + "\"usage\":{\"prompt_tokens\":1200,\"completion_tokens\":20,\"total_tokens\":1220,"
                + "\"prompt_tokens_details\":{\"cached_tokens\":1024}}}");
        send(out, "[DONE]");
    }

    /** Paced from the request's start, not from the previous chunk, so pauses do not add up drift. */
    private static void waitUntil(long deadline) {
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
        }
    }

    private static String chunk(String id, String delta, String finishReason) {
        return "{\"id\":\"" + id + "\",\"object\":\"chat.completion.chunk\",\"created\":0,\"model\":\"paced-1\","
                + "\"choices\":[{\"index\":0,\"delta\":{" + delta + "},\"finish_reason\":" + finishReason + "}]}";
    }

    private static void send(OutputStream out, String data) throws IOException {
        out.write(("data: " + data).getBytes(StandardCharsets.UTF_8));
        out.write(EVENT_END);
        out.flush();
    }

    static String escape(String text) {
        return text.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }
}
