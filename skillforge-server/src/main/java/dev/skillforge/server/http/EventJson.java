package dev.skillforge.server.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.core.agent.AgentEvent;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.json.UsageJson;

/**
 * The wire form of an event: one JSON object with {@code type} and {@code iteration} first, then the
 * event's fields as named in docs/design.md, section 4, and the API reference. Unknown usage figures are left out, not sent as 0.
 */
public final class EventJson {

    private EventJson() {
    }

    public static String write(AgentEvent event) {
        ObjectNode json = Json.object();
        json.put("type", event.type());
        json.put("iteration", event.iteration());
        switch (event) {
            case AgentEvent.Text e -> json.put("content", e.content());
            case AgentEvent.Reasoning e -> json.put("content", e.content());
            case AgentEvent.ToolCall e -> json.put("commandId", e.commandId()).put("command", e.command());
            case AgentEvent.ToolStart e -> json.put("commandId", e.commandId()).put("command", e.command());
            case AgentEvent.ToolResult e -> json.put("commandId", e.commandId()).put("command", e.command())
                    .put("result", e.result()).put("exitCode", e.exitCode());
            case AgentEvent.RawContent e -> json.put("rawContent", e.rawContent());
            case AgentEvent.ToolOutput e -> json.put("toolOutput", e.toolOutput());
            case AgentEvent.Source e -> json.put("url", e.url()).put("title", e.title());
            case AgentEvent.UsageReport e -> UsageJson.put(json, e.usage());
            case AgentEvent.ContextCut e -> json.put("keptFrom", e.keptFrom()).put("note", e.note());
            case AgentEvent.IterationEnd e -> json.put("hasMoreCommands", e.hasMoreCommands());
            case AgentEvent.Done e -> {
                json.put("stopReason", e.stopReason().wireName()).put("iterations", e.iterations()).put("commands", e.commands());
                UsageJson.put(json, e.totals());
            }
            case AgentEvent.Error e -> json.put("message", e.message()).put("code", e.code());
        }
        return Json.write(json);
    }
}
