package dev.skillforge.server.conversation;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.core.agent.AgentEvent;
import dev.skillforge.core.agent.AgentLoop;
import dev.skillforge.core.agent.EventSink;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.json.UsageJson;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Follows a turn's events and keeps what the page shows of it besides the transcript text: per
 * iteration the commands with their status (queued, running, completed, failed, cancelled), exit
 * codes and results, and the usage; for the turn its status, stop reason or error, and totals.
 * The summary is stored with the turn when it ends.
 */
final class TurnRecorder implements EventSink {

    private final Map<Integer, ObjectNode> iterations = new LinkedHashMap<>();
    private final Map<String, ObjectNode> commands = new LinkedHashMap<>();
    private final ObjectNode turn = Json.object();

    TurnRecorder() {
        turn.put("status", "running");
    }

    @Override
    public synchronized void accept(AgentEvent event) {
        switch (event) {
            case AgentEvent.ToolCall e -> {
                ObjectNode command = iteration(e.iteration()).withArray("commands").addObject();
                command.put("commandId", e.commandId()).put("command", e.command()).put("status", "queued");
                commands.put(e.commandId(), command);
            }
            case AgentEvent.ToolStart e -> command(e.commandId(), e.iteration(), e.command()).put("status", "running");
            case AgentEvent.ToolResult e -> command(e.commandId(), e.iteration(), e.command())
                    .put("status", statusOf(e.exitCode(), e.result())).put("exitCode", e.exitCode()).put("result", e.result());
            case AgentEvent.UsageReport e -> UsageJson.put(iteration(e.iteration()).putObject("usage"), e.usage());
            case AgentEvent.Source e -> iteration(e.iteration()).withArray("sources").addObject().put("url", e.url()).put("title", e.title());
            case AgentEvent.Done e -> {
                turn.put("status", statusOf(e)).put("stopReason", e.stopReason().wireName()).put("iterations", e.iterations());
                UsageJson.put(turn.putObject("usage"), e.totals());
            }
            case AgentEvent.Error e -> {
                turn.put("status", "failed");
                turn.putObject("error").put("code", e.code()).put("message", e.message());
            }
            default -> {
                // text, reasoning, raw content and tool output are in the transcript itself
            }
        }
    }

    /** The summary so far (complete once the turn ended): {@code status}, {@code iterations[]}, usage, stop reason or error. */
    synchronized ObjectNode summary() {
        ObjectNode copy = turn.deepCopy();
        ArrayNode list = copy.putArray("perIteration");
        iterations.values().forEach(node -> list.add(node.deepCopy()));
        return copy;
    }

    private ObjectNode iteration(int iteration) {
        return iterations.computeIfAbsent(iteration, i -> Json.object().put("iteration", i));
    }

    /** The command's record; created if its tool-call was not seen (a client re-attaching mid-turn never causes that here, but be safe). */
    private ObjectNode command(String id, int iteration, String text) {
        return commands.computeIfAbsent(id, k -> {
            ObjectNode command = iteration(iteration).withArray("commands").addObject();
            return command.put("commandId", id).put("command", text);
        });
    }

    private static String statusOf(int exitCode, String result) {
        if (exitCode == AgentLoop.NOT_RUN_EXIT_CODE && result.startsWith("[not run")) {
            return "cancelled";
        }
        return exitCode == 0 ? "completed" : "failed";
    }

    private static String statusOf(AgentEvent.Done done) {
        return switch (done.stopReason()) {
            case COMPLETE, MAX_ITERATIONS -> "complete";
            case CANCELLED -> "cancelled";
        };
    }
}
