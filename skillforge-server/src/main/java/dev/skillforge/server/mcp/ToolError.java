package dev.skillforge.server.mcp;

/**
 * A tool call that cannot do what was asked: wrong arguments, an unknown conversation, a busy one, a
 * provider that failed. It becomes a tool result with {@code isError: true} and this message, which
 * the calling model reads and can act on; never a protocol error.
 */
final class ToolError extends RuntimeException {

    ToolError(String message) {
        super(message, null, false, false);
    }
}
