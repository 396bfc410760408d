package dev.skillforge.server.provider.sim;

import java.time.Duration;
import java.util.List;

/**
 * One answer of the simulated provider: the text chunks exactly as they will be streamed (so a test
 * chooses the chunk boundaries), optional reasoning chunks before them, a pause between chunks, and
 * an optional fault. In Gemini's format a reply can also carry a thought signature (sent on a final
 * empty-text part, as Gemini 3 does), grounding sources, and a finish reason other than {@code STOP};
 * in OpenAI's format sources are sent as GLM sends its web search results, and the finish reason is
 * mapped ({@code MAX_TOKENS} to {@code length}, the refusals to {@code content_filter}). In Anthropic's
 * format the reasoning is a thinking block signed with the thought signature (or one the simulation makes
 * up), a reply may add a {@code redacted_thinking} block, and the finish reason is mapped
 * ({@code MAX_TOKENS} to {@code max_tokens}, the refusals to {@code refusal}).
 */
public record SimReply(List<String> reasoning, List<String> chunks, Duration delay, Fault fault,
                       String thoughtSignature, List<Source> sources, String finishReason, String redactedThinking) {

    public SimReply {
        reasoning = List.copyOf(reasoning);
        chunks = List.copyOf(chunks);
        sources = List.copyOf(sources);
    }

    public SimReply(List<String> reasoning, List<String> chunks, Duration delay, Fault fault) {
        this(reasoning, chunks, delay, fault, null, List.of(), null, null);
    }

    /** A web page the answer is grounded on. */
    public record Source(String url, String title) {
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

    /**
     * After {@code afterChunks} chunks, wait until {@code release} is counted down (at most a minute), then go
     * on with the rest as if nothing happened: a test decides when a turn may end, instead of racing a delay.
     */
    public record Hold(int afterChunks, java.util.concurrent.CountDownLatch release) implements Fault {
    }

    public static SimReply of(String... chunks) {
        return new SimReply(List.of(), List.of(chunks), Duration.ZERO, null);
    }

    public SimReply withReasoning(String... reasoningChunks) {
        return new SimReply(List.of(reasoningChunks), chunks, delay, fault, thoughtSignature, sources, finishReason, redactedThinking);
    }

    public SimReply withDelay(Duration pause) {
        return new SimReply(reasoning, chunks, pause, fault, thoughtSignature, sources, finishReason, redactedThinking);
    }

    public SimReply withFault(Fault what) {
        return new SimReply(reasoning, chunks, delay, what, thoughtSignature, sources, finishReason, redactedThinking);
    }

    /** Gemini: end with {@code {"text": "", "thoughtSignature": signature}}, which a later request must carry back. */
    public SimReply withThoughtSignature(String signature) {
        return new SimReply(reasoning, chunks, delay, fault, signature, sources, finishReason, redactedThinking);
    }

    public SimReply withSources(Source... grounding) {
        return new SimReply(reasoning, chunks, delay, fault, thoughtSignature, List.of(grounding), finishReason, redactedThinking);
    }

    /** Gemini's finish reason ({@code SAFETY}, {@code MAX_TOKENS}, …) instead of {@code STOP}. */
    public SimReply withFinishReason(String reason) {
        return new SimReply(reasoning, chunks, delay, fault, thoughtSignature, sources, reason, redactedThinking);
    }

    /** Anthropic: a {@code redacted_thinking} block with this (encrypted) data after the thinking, which a later request must carry back. */
    public SimReply withRedactedThinking(String data) {
        return new SimReply(reasoning, chunks, delay, fault, thoughtSignature, sources, finishReason, data);
    }

    public String text() {
        return String.join("", chunks);
    }
}
