package dev.skillforge.server.mcp;

import io.modelcontextprotocol.spec.McpSchema;

/** One tool of SkillForge's MCP server: what {@code tools/list} shows of it, and what a call does. */
interface McpTool {

    McpSchema.Tool definition();

    /**
     * Runs one call. A {@link ToolError} becomes a result with {@code isError: true} and its message.
     *
     * @return a result; with {@code isError} unset, {@code structuredContent} matches the tool's output schema
     */
    McpSchema.CallToolResult call(ToolCall call);

    default String name() {
        return definition().name();
    }
}
