package dev.skillforge.server.http;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.skillforge.core.agent.AgentEvent;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.json.UsageJson;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;

/**
 * The wire form of an event: one JSON object with {@code type} and {@code iteration} first, then the
 * event's fields as named in docs/design.md, section 4, and the API reference. Unknown usage figures are left out, not sent as 0.
 *
 * <p>Written with Jackson's streaming generator, no tree: the character generator the mapper uses for
 * a tree, so the text is the same (the byte generator would differ: it escapes surrogate pairs).
 */
public final class EventJson {

    private EventJson() {
    }

    /** Appends the event's JSON to {@code out}. */
    static void write(AgentEvent event, Writer out) {
        try (JsonGenerator json = Json.MAPPER.getFactory().createGenerator(out)) {
            write(event, json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The event as a JSON string. */
    public static String write(AgentEvent event) {
        StringWriter text = new StringWriter();
        write(event, text);
        return text.toString();
    }

    private static void write(AgentEvent event, JsonGenerator json) throws IOException {
        json.writeStartObject();
        json.writeStringField("type", event.type());
        json.writeNumberField("iteration", event.iteration());
        switch (event) {
            case AgentEvent.Text e -> json.writeStringField("content", e.content());
            case AgentEvent.Reasoning e -> json.writeStringField("content", e.content());
            case AgentEvent.ToolCall e -> command(json, e.commandId(), e.command());
            case AgentEvent.ToolStart e -> command(json, e.commandId(), e.command());
            case AgentEvent.ToolResult e -> {
                command(json, e.commandId(), e.command());
                json.writeStringField("result", e.result());
                json.writeNumberField("exitCode", e.exitCode());
            }
            case AgentEvent.RawContent e -> json.writeStringField("rawContent", e.rawContent());
            case AgentEvent.ToolOutput e -> json.writeStringField("toolOutput", e.toolOutput());
            case AgentEvent.Source e -> {
                json.writeStringField("url", e.url());
                json.writeStringField("title", e.title());
            }
            case AgentEvent.UsageReport e -> UsageJson.write(json, e.usage());
            case AgentEvent.ContextCut e -> {
                json.writeNumberField("keptFrom", e.keptFrom());
                json.writeStringField("note", e.note());
            }
            case AgentEvent.IterationEnd e -> json.writeBooleanField("hasMoreCommands", e.hasMoreCommands());
            case AgentEvent.Done e -> {
                json.writeStringField("stopReason", e.stopReason().wireName());
                json.writeNumberField("iterations", e.iterations());
                json.writeNumberField("commands", e.commands());
                UsageJson.write(json, e.totals());
            }
            case AgentEvent.Error e -> {
                json.writeStringField("message", e.message());
                json.writeStringField("code", e.code());
            }
        }
        json.writeEndObject();
    }

    private static void command(JsonGenerator json, String commandId, String command) throws IOException {
        json.writeStringField("commandId", commandId);
        json.writeStringField("command", command);
    }
}
