package dev.skillforge.server.provider.sim;

import java.time.Duration;
import java.util.List;

/**
 * One answer of the simulated provider: the text chunks exactly as they will be streamed (so a test
 * chooses the chunk boundaries), optional reasoning chunks before them, a pause between chunks, and
 * an optional fault.
 */
public record SimReply(List<String> reasoning, List<String> chunks, Duration delay, Fault fault) {

    public SimReply {
        reasoning = List.copyOf(reasoning);
        chunks = List.copyOf(chunks);
    }

    /** What goes wrong, if anything. */
    public sealed interface Fault {
    }

    /** Answer with an HTTP error status and an OpenAI-style error body instead of a stream. */
    public record HttpError(int status, String message, String retryAfter) implements Fault {
    }

    /** After {@code afterChunks} chunks, send {@code data: {"error": …}} and end the body. */
    public record StreamError(int afterChunks, String message) implements Fault {
    }

    /** After {@code afterChunks} chunks, end the body without {@code [DONE]}. */
    public record Truncate(int afterChunks) implements Fault {
    }

    /**
     * After {@code afterChunks} chunks, send only SSE comments (keep-alives, as OpenRouter sends) for
     * up to a minute, until the client leaves: a stream that is alive but never finishes.
     */
    public record Stall(int afterChunks) implements Fault {
    }

    /** After {@code afterChunks} chunks, send nothing at all for {@code duration}, then end without {@code [DONE]}. */
    public record Silence(int afterChunks, Duration duration) implements Fault {
    }

    public static SimReply of(String... chunks) {
        return new SimReply(List.of(), List.of(chunks), Duration.ZERO, null);
    }

    public SimReply withReasoning(String... reasoningChunks) {
        return new SimReply(List.of(reasoningChunks), chunks, delay, fault);
    }

    public SimReply withDelay(Duration pause) {
        return new SimReply(reasoning, chunks, pause, fault);
    }

    public SimReply withFault(Fault what) {
        return new SimReply(reasoning, chunks, delay, what);
    }

    public String text() {
        return String.join("", chunks);
    }
}
