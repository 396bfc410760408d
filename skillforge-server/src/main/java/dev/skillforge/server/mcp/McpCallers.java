package dev.skillforge.server.mcp;

import dev.skillforge.server.people.Caller;
import io.modelcontextprotocol.server.McpAsyncServerExchange;

/**
 * Who an MCP request acts for. Over HTTP the door resolves the request's credential to a caller and the transport
 * context carries it to the handlers; over stdio, the client started this process with its user's rights on the
 * data folder, so it acts for the server's own person, {@link Caller#LOCAL}.
 */
final class McpCallers {

    /** The request attribute, and the transport context key, holding the caller. */
    static final String KEY = McpCallers.class.getName();

    private McpCallers() {
    }

    /** @throws IllegalStateException when the transport carried no caller (a door that did not resolve one) */
    static Caller of(McpAsyncServerExchange exchange) {
        if (exchange.transportContext().get(KEY) instanceof Caller caller) {
            return caller;
        }
        throw new IllegalStateException("an MCP request reached a handler with no caller resolved");
    }
}
