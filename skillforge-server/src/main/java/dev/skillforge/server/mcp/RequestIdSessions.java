package dev.skillforge.server.mcp;

import io.modelcontextprotocol.server.McpInitRequestHandler;
import io.modelcontextprotocol.server.McpNotificationHandler;
import io.modelcontextprotocol.server.McpRequestHandler;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpServerSession;
import io.modelcontextprotocol.spec.McpServerTransport;
import io.modelcontextprotocol.spec.McpStreamableServerSession;
import io.modelcontextprotocol.spec.McpStreamableServerTransport;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

import java.time.Duration;
import java.util.Map;

/**
 * The SDK's two kinds of server session, each putting the JSON-RPC id of every request it handles
 * into the Reactor context of that request's handling. The SDK hands request handlers no id, but a
 * {@code notifications/cancelled} names the request to stop by its id: this is how a tool call knows
 * which id cancels it.
 */
final class RequestIdSessions {

    private static final String KEY = RequestIdSessions.class.getName() + ".requestId";

    private RequestIdSessions() {
    }

    /** The id of the request being handled, or {@code null} outside one. */
    static Object requestId(ContextView context) {
        return context.getOrDefault(KEY, null);
    }

    private static Mono<Void> withId(Mono<Void> handling, McpSchema.JSONRPCRequest request) {
        return request.id() == null ? handling : handling.contextWrite(context -> context.put(KEY, request.id()));
    }

    /** A session of the Streamable HTTP transport: each request arrives through {@link #responseStream}. */
    static final class Streamable extends McpStreamableServerSession {

        Streamable(String id, McpSchema.InitializeRequest init, Duration requestTimeout,
                   Map<String, McpRequestHandler<?>> requestHandlers, Map<String, McpNotificationHandler> notificationHandlers) {
            super(id, init.capabilities(), init.clientInfo(), requestTimeout, requestHandlers, notificationHandlers);
        }

        @Override
        public Mono<Void> responseStream(McpSchema.JSONRPCRequest request, McpStreamableServerTransport transport) {
            return withId(super.responseStream(request, transport), request);
        }
    }

    /** The session of the stdio transport: every message arrives through {@link #handle}. */
    static final class Stdio extends McpServerSession {

        Stdio(String id, Duration requestTimeout, McpServerTransport transport, McpInitRequestHandler initHandler,
              Map<String, McpRequestHandler<?>> requestHandlers, Map<String, McpNotificationHandler> notificationHandlers) {
            super(id, requestTimeout, transport, initHandler, requestHandlers, notificationHandlers);
        }

        @Override
        public Mono<Void> handle(McpSchema.JSONRPCMessage message) {
            Mono<Void> handling = super.handle(message);
            return message instanceof McpSchema.JSONRPCRequest request ? withId(handling, request) : handling;
        }
    }
}
