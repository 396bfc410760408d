package dev.skillforge.server.trace;

import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.skillforge.core.agent.AgentEvent;
import dev.skillforge.core.agent.EventSink;
import dev.skillforge.core.agent.Usage;
import dev.skillforge.server.cache.PrefixGuard;
import dev.skillforge.server.json.Json;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The spans of one turn, built from its event stream: {@code invoke_agent skillforge} from the turn's start to its
 * last event; under it a {@code chat {model}} per model call (from the moment the loop asks the model, which is the
 * turn's start or the previous iteration's end, to the call's usage) and an {@code execute_tool {program}} per
 * command (tool-start to tool-result). A chat span is opened only when its call shows a sign of life (an event, or
 * the prefix guard's verdict), so a turn stopped before asking again has no empty call. Without content
 * ({@code FORGE_TRACE_CONTENT}) no text of the conversation goes into a span: a command's tool is {@value GenAi#SHELL_TOOL},
 * a failure's status says its code.
 *
 * <p>Created on the thread that starts the turn; afterwards one thread at a time touches it: the run's (the prefix
 * guard, most events), or while a model streams, the thread that reads its answer, which hands over to the run's
 * thread when the call ends.
 */
final class TurnTrace implements EventSink {

    /**
     * What a turn is, as far as its spans tell.
     *
     * @param person the id of the person the turn is for ({@code user.id}): never their name or e-mail */
    record Turn(String provider, String preset, String model, String conversationId, String person, String mode, String message) {
    }

    private final Tracer tracer;
    private final Turn turn;
    private final boolean content;
    private final Consumer<TurnTrace> onEnd;
    private final Span span;
    private final Context context;
    private final Map<String, Span> tools = new HashMap<>();
    private Span chat;
    private int nextIteration;
    private Instant nextCallAt;
    private long nextCallNanos;
    private String nextInput;
    private boolean firstChunkSeen;
    private String lastAnswer;

    TurnTrace(Tracer tracer, Turn turn, boolean content, Context parent, Consumer<TurnTrace> onEnd) {
        this.tracer = tracer;
        this.turn = turn;
        this.content = content;
        this.onEnd = onEnd;
        Instant now = Instant.now();
        var builder = tracer.spanBuilder(GenAi.INVOKE_AGENT + " " + GenAi.AGENT_NAME).setParent(parent).setSpanKind(SpanKind.INTERNAL)
                .setStartTimestamp(now)
                .setAttribute(GenAi.OPERATION_NAME, GenAi.INVOKE_AGENT)
                .setAttribute(GenAi.AGENT, GenAi.AGENT_NAME)
                .setAttribute(GenAi.MODE, turn.mode());
        common(builder::setAttribute);
        if (content && turn.message() != null) {
            builder.setAttribute(GenAi.INPUT_MESSAGES, messages("user", turn.message()));
        }
        this.span = builder.startSpan();
        this.context = parent.with(span);
        this.nextCallAt = now;
        this.nextCallNanos = System.nanoTime();
        this.nextInput = turn.message();
    }

    /** The attributes every span of the turn carries. */
    private void common(AttributeSetter set) {
        set.put(GenAi.PROVIDER_NAME, GenAi.providerName(turn.preset()));
        set.put(GenAi.PROVIDER, turn.provider());
        set.put(GenAi.REQUEST_MODEL, turn.model());
        if (turn.conversationId() != null) {
            set.put(GenAi.CONVERSATION_ID, turn.conversationId());
        }
        set.put(GenAi.USER_ID, turn.person());
    }

    @FunctionalInterface
    private interface AttributeSetter {
        <T> void put(AttributeKey<T> key, T value);
    }

    @Override
    public void accept(AgentEvent event) {
        switch (event) {
            case AgentEvent.Text e -> firstChunk();
            case AgentEvent.Reasoning e -> firstChunk();
            case AgentEvent.ContextCut e -> chat().addEvent(GenAi.CONTEXT_CUT_EVENT, Attributes.of(GenAi.KEPT_FROM, (long) e.keptFrom()));
            case AgentEvent.RawContent e -> answer(e.rawContent());
            case AgentEvent.UsageReport e -> {
                Span call = chat();
                usage(call, e.usage());
                if (e.responseModel() != null) {
                    call.setAttribute(GenAi.RESPONSE_MODEL, e.responseModel());
                }
                if (e.finishReason() != null) {
                    call.setAttribute(GenAi.FINISH_REASONS, List.of(e.finishReason()));
                }
                endChat(null);
            }
            case AgentEvent.ToolStart e -> toolStart(e);
            case AgentEvent.ToolResult e -> toolResult(e);
            case AgentEvent.ToolOutput e -> nextInput = e.toolOutput();
            case AgentEvent.IterationEnd e -> iterationEnd(e);
            case AgentEvent.Done e -> done(e);
            case AgentEvent.Error e -> failed(e);
            default -> {
                // tool calls (announced, not yet run) and sources have no span of their own
            }
        }
    }

    /** The prefix guard's verdict on the request the current call sends (docs/cache.md). */
    void cacheVerdict(PrefixGuard.Verdict verdict, PrefixGuard.Break found) {
        Span call = chat();
        call.setAttribute(GenAi.CACHE_VERDICT, verdict.name().toLowerCase(Locale.ROOT));
        if (found != null) {
            call.addEvent(GenAi.CACHE_BREAK_EVENT, Attributes.of(GenAi.BREAK_REQUEST, found.request(),
                    GenAi.BREAK_MESSAGE, (long) found.messageIndex(), GenAi.BREAK_CHARACTER, (long) found.charOffset()));
        }
    }

    /** The span of the model call going on, opened when first needed. */
    private Span chat() {
        if (chat == null) {
            var builder = tracer.spanBuilder(GenAi.CHAT + " " + turn.model()).setParent(context).setSpanKind(SpanKind.CLIENT)
                    .setStartTimestamp(nextCallAt)
                    .setAttribute(GenAi.OPERATION_NAME, GenAi.CHAT)
                    .setAttribute(GenAi.ITERATION, (long) nextIteration);
            common(builder::setAttribute);
            if (content && nextInput != null) {
                builder.setAttribute(GenAi.INPUT_MESSAGES, messages(nextIteration == 0 ? "user" : "tool", nextInput));
            }
            chat = builder.startSpan();
            firstChunkSeen = false;
        }
        return chat;
    }

    private void firstChunk() {
        Span call = chat();
        if (!firstChunkSeen) {
            firstChunkSeen = true;
            call.setAttribute(GenAi.TIME_TO_FIRST_CHUNK, (System.nanoTime() - nextCallNanos) / 1e9);
        }
    }

    private void answer(String text) {
        lastAnswer = text;
        if (content) {
            chat().setAttribute(GenAi.OUTPUT_MESSAGES, messages("assistant", text));
        }
    }

    private void endChat(AgentEvent.Error error) {
        if (chat == null) {
            return;
        }
        if (error != null) {
            chat.setStatus(StatusCode.ERROR, errorText(error)).setAttribute(GenAi.ERROR_TYPE, error.code());
        }
        chat.end(Instant.now());
        chat = null;
    }

    /** A failure's words quote the provider or the command (they may hold what they were sent): content, like them. */
    private String errorText(AgentEvent.Error error) {
        return content ? error.message() : error.code();
    }

    private void toolStart(AgentEvent.ToolStart e) {
        // The first word of a command is the model's text like the rest (a program, or an assignment with a secret).
        String program = content ? program(e.command()) : GenAi.SHELL_TOOL;
        var builder = tracer.spanBuilder(GenAi.EXECUTE_TOOL + " " + program).setParent(context).setSpanKind(SpanKind.INTERNAL)
                .setStartTimestamp(Instant.now())
                .setAttribute(GenAi.OPERATION_NAME, GenAi.EXECUTE_TOOL)
                .setAttribute(GenAi.TOOL_NAME, program)
                .setAttribute(GenAi.TOOL_TYPE, GenAi.TOOL_TYPE_EXTENSION)
                .setAttribute(GenAi.TOOL_CALL_ID, e.commandId())
                .setAttribute(GenAi.ITERATION, (long) e.iteration());
        if (turn.conversationId() != null) {
            builder.setAttribute(GenAi.CONVERSATION_ID, turn.conversationId());
        }
        if (content) {
            builder.setAttribute(GenAi.TOOL_ARGUMENTS, e.command());
        }
        tools.put(e.commandId(), builder.startSpan());
    }

    private void toolResult(AgentEvent.ToolResult e) {
        Span tool = tools.remove(e.commandId());
        if (tool == null) {
            return; // a command that did not run (stopped, over budget, the call failed) has no span
        }
        tool.setAttribute(GenAi.EXIT_CODE, (long) e.exitCode());
        if (content) {
            tool.setAttribute(GenAi.TOOL_RESULT, e.result());
        }
        tool.end(Instant.now());
    }

    private void iterationEnd(AgentEvent.IterationEnd e) {
        endChat(null);
        if (e.hasMoreCommands()) {
            nextIteration = e.iteration() + 1;
            nextCallAt = Instant.now();
            nextCallNanos = System.nanoTime();
        }
    }

    private void done(AgentEvent.Done e) {
        endChat(null);
        usage(span, e.totals());
        span.setAttribute(GenAi.ITERATIONS, (long) e.iterations()).setAttribute(GenAi.COMMANDS, (long) e.commands())
                .setAttribute(GenAi.FINISH_REASONS, List.of(e.stopReason().name().toLowerCase(Locale.ROOT)));
        if (content && lastAnswer != null) {
            span.setAttribute(GenAi.OUTPUT_MESSAGES, messages("assistant", lastAnswer));
        }
        end();
    }

    private void failed(AgentEvent.Error e) {
        chat(); // the call that failed, also when it had shown nothing yet
        endChat(e);
        span.setStatus(StatusCode.ERROR, errorText(e)).setAttribute(GenAi.ERROR_TYPE, e.code());
        end();
    }

    private void end() {
        Instant now = Instant.now();
        tools.values().forEach(tool -> tool.end(now));
        tools.clear();
        span.end(now);
        onEnd.accept(this);
    }

    private static void usage(Span target, Usage usage) {
        set(target, GenAi.INPUT_TOKENS, usage.inputTokens());
        set(target, GenAi.OUTPUT_TOKENS, usage.outputTokens());
        set(target, GenAi.CACHE_READ_TOKENS, usage.cacheReadTokens());
        set(target, GenAi.CACHE_CREATION_TOKENS, usage.cacheWriteTokens());
    }

    /** An unknown figure is left out: unknown is not zero. */
    private static void set(Span target, AttributeKey<Long> key, Long value) {
        if (value != null) {
            target.setAttribute(key, value);
        }
    }

    /** The program a command runs: its first word (the tool's name in the trace when content is on). */
    static String program(String command) {
        String trimmed = command.strip();
        int end = 0;
        while (end < trimmed.length() && !Character.isWhitespace(trimmed.charAt(end))) {
            end++;
        }
        return end == 0 ? GenAi.SHELL_TOOL : trimmed.substring(0, Math.min(end, 64));
    }

    /** One message in the conventions' shape: {@code [{"role":…,"parts":[{"type":"text","content":…}]}]}. */
    private static String messages(String role, String text) {
        ArrayNode list = Json.MAPPER.createArrayNode();
        list.addObject().put("role", role).putArray("parts").addObject().put("type", "text").put("content", text);
        return Json.write(list);
    }
}
