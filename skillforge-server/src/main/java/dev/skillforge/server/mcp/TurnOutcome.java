package dev.skillforge.server.mcp;

import dev.skillforge.core.agent.AgentEvent;
import dev.skillforge.core.agent.StopReason;
import dev.skillforge.core.agent.Usage;
import dev.skillforge.server.store.ConversationRecord;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What one turn came to, gathered from its events as they come: the final answer (the last
 * iteration's output, exactly as stored), the commands run with their exit codes, the iterations,
 * why it stopped, and the usage totals; or the error it ended with. {@code chat} returns it as
 * structured content and as text a model can read.
 */
final class TurnOutcome {

    /** A command the turn ran (or closed unrun, with exit code 130), as its {@code tool-result} reported it. */
    record Command(String id, String command, int exitCode) {
    }

    private String answer = "";
    private final List<Command> commands = new ArrayList<>();
    private AgentEvent.Done done;
    private AgentEvent.Error error;

    void accept(AgentEvent event) {
        switch (event) {
            case AgentEvent.RawContent raw -> answer = raw.rawContent();
            case AgentEvent.ToolResult result -> commands.add(new Command(result.commandId(), result.command(), result.exitCode()));
            case AgentEvent.Done end -> done = end;
            case AgentEvent.Error failure -> error = failure;
            default -> {
                // the rest (text chunks, usage per call, …) is summed up by raw-content and done
            }
        }
    }

    /** True once the turn's last event ({@code done} or {@code error}) was seen. */
    boolean ended() {
        return done != null || error != null;
    }

    /** The error the turn ended with, or {@code null}. */
    AgentEvent.Error error() {
        return error;
    }

    /** The result as the output schema of {@code chat} describes it; unknown usage figures are left out, never 0. */
    Map<String, Object> structured(ConversationRecord conversation) {
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("answer", answer);
        result.put("continuation_id", conversation.id());
        result.put("provider", conversation.provider());
        result.put("model", conversation.model());
        result.put("stop_reason", done.stopReason().wireName());
        result.put("iterations", done.iterations());
        result.put("commands", commands.stream().map(c -> {
            Map<String, Object> command = new LinkedHashMap<>();
            command.put("id", c.id());
            command.put("command", c.command());
            command.put("exit_code", c.exitCode());
            return command;
        }).toList());
        Map<String, Object> usage = new LinkedHashMap<>();
        Usage totals = done.totals();
        putKnown(usage, "input_tokens", totals.inputTokens());
        putKnown(usage, "output_tokens", totals.outputTokens());
        putKnown(usage, "cached_tokens", totals.cacheReadTokens());
        result.put("usage", usage);
        return result;
    }

    /** The answer, then a footer with the continuation id and what the turn did. */
    String text(ConversationRecord conversation) {
        StringBuilder text = new StringBuilder();
        if (!answer.isEmpty()) {
            text.append(answer);
        } else {
            text.append("(no answer: the turn was stopped before the model wrote anything)");
        }
        text.append("\n\n---\ncontinuation_id: ").append(conversation.id())
                .append(" (pass it to chat to continue this conversation)\n")
                .append("provider: ").append(conversation.provider()).append(" (").append(conversation.model()).append(")")
                .append(", stop: ").append(done.stopReason().wireName())
                .append(done.stopReason() == StopReason.MAX_ITERATIONS ? " (the iteration limit ended the turn)" : "")
                .append(", iterations: ").append(done.iterations());
        if (!commands.isEmpty()) {
            text.append("\ncommands: ").append(commands.stream()
                    .map(c -> c.id() + " `" + firstLine(c.command()) + "` exit " + c.exitCode())
                    .collect(Collectors.joining("; ")));
        }
        Usage totals = done.totals();
        text.append("\nusage: ").append(figure(totals.inputTokens())).append(" input tokens (")
                .append(figure(totals.cacheReadTokens())).append(" cached), ").append(figure(totals.outputTokens())).append(" output");
        return text.toString();
    }

    private static void putKnown(Map<String, Object> usage, String name, Long value) {
        if (value != null) {
            usage.put(name, value);
        }
    }

    private static String figure(Long value) {
        return value == null ? "unknown" : value.toString();
    }

    private static String firstLine(String command) {
        int newline = command.indexOf('\n');
        return newline < 0 ? command : command.substring(0, newline) + " …";
    }
}
