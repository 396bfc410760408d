package dev.skillforge.server.mcp;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.server.json.Json;

/**
 * A message from an MCP client that the server answers with a JSON-RPC error of its own, saying what was wrong with
 * it and nothing about the server: a parse error, an invalid request or invalid parameters. The answer names the
 * request's id when it had a valid one, else {@code null}, as JSON-RPC 2.0 asks.
 */
final class MessageRefusal extends Exception {

    static final int PARSE_ERROR = -32700;
    static final int INVALID_REQUEST = -32600;
    static final int INVALID_PARAMS = -32602;
    /** JSON-RPC's range for a server's own errors starts here: the server cannot take the request now. */
    static final int SERVER_BUSY = -32000;

    private final int code;
    private final Object id;

    MessageRefusal(int code, String message, Object id) {
        super(message, null, false, false);
        this.code = code;
        this.id = id;
    }

    int code() {
        return code;
    }

    /** The error response: {@code {"jsonrpc":"2.0","id":…,"error":{"code":…,"message":…}}}. */
    ObjectNode response() {
        ObjectNode response = Json.object().put("jsonrpc", "2.0");
        switch (id) {
            case String text -> response.put("id", text);
            case Long number -> response.put("id", number);
            case null, default -> response.putNull("id");
        }
        response.putObject("error").put("code", code).put("message", getMessage());
        return response;
    }
}
