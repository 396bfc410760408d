package dev.skillforge.server.mcp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import dev.skillforge.server.json.Json;
import io.modelcontextprotocol.spec.McpSchema;

import java.util.List;
import java.util.Map;

/** Building tool definitions and results: schemas from JSON text, results with a text block and structured content. */
final class ToolResults {

    private ToolResults() {
    }

    /** A successful result: {@code text} for a model to read, {@code structured} for a program (it matches the output schema). */
    static McpSchema.CallToolResult ok(String text, Map<String, Object> structured) {
        return McpSchema.CallToolResult.builder().content(List.of(McpSchema.TextContent.builder(text).build()))
                .structuredContent(structured).isError(false).build();
    }

    /** A tool error: {@code isError: true} and the message, which the calling model reads. */
    static McpSchema.CallToolResult error(String message) {
        return McpSchema.CallToolResult.builder().content(List.of(McpSchema.TextContent.builder(message).build())).isError(true).build();
    }

    /** A JSON Schema written as JSON text (kept in the order written: clients show it, and cache it in their prompts). */
    static Map<String, Object> schema(String json) {
        try {
            return Json.MAPPER.readValue(json, new TypeReference<>() {
            });
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("a tool schema is not valid JSON: " + e.getOriginalMessage(), e);
        }
    }
}
