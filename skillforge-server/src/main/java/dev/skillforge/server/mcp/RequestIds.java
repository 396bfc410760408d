package dev.skillforge.server.mcp;

import dev.skillforge.server.people.Caller;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpAsyncServerExchange;
import io.modelcontextprotocol.server.McpInitRequestHandler;
import io.modelcontextprotocol.server.McpNotificationHandler;
import io.modelcontextprotocol.server.McpRequestHandler;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpServerSession;
import io.modelcontextprotocol.spec.McpServerTransport;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * How a request handler learns the JSON-RPC id of the request it handles: the SDK hands handlers no
 * id, but a {@code notifications/cancelled} names the request to stop by its id. The id travels in
 * the request's transport context ({@link McpAsyncServerExchange#transportContext()}): over HTTP the
 * door reads it from the body ({@link IncomingMessage}) and the servlet's context extractor puts it there;
 * over stdio the session does ({@link StdioSession}).
 */
final class RequestIds {

    /** The request attribute, and the transport context key, holding the id. */
    static final String KEY = RequestIds.class.getName();

    private RequestIds() {
    }

    /** The id of the request being handled, or {@code null} (a notification, or a body that is not a request). */
    static Object of(McpAsyncServerExchange exchange) {
        return exchange.transportContext().get(KEY);
    }

    /** The transport context of a request: its id (when it is a request) and its caller ({@link McpCallers}). */
    static McpTransportContext context(Object id, Caller caller) {
        Map<String, Object> values = new HashMap<>();
        if (id != null) {
            values.put(KEY, id);
        }
        if (caller != null) {
            values.put(McpCallers.KEY, caller);
        }
        return values.isEmpty() ? McpTransportContext.EMPTY : McpTransportContext.create(values);
    }

    /** The session of the stdio transport: every message arrives through {@link #handle}, which adds the request's id. */
    static final class StdioSession extends McpServerSession {

        StdioSession(String id, Duration requestTimeout, McpServerTransport transport, McpInitRequestHandler initHandler,
                     Map<String, McpRequestHandler<?>> requestHandlers, Map<String, McpNotificationHandler> notificationHandlers) {
            super(id, requestTimeout, transport, initHandler, requestHandlers, notificationHandlers);
        }

        @Override
        public Mono<Void> handle(McpSchema.JSONRPCMessage message) {
            Mono<Void> handling = super.handle(message);
            return message instanceof McpSchema.JSONRPCRequest request && request.id() != null
                    ? handling.contextWrite(context -> context.put(McpTransportContext.KEY, context(request.id(), Caller.LOCAL)))
                    : handling;
        }
    }
}
