package dev.skillforge.server.mcp;

import io.modelcontextprotocol.server.McpRequestHandler;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

import java.util.HashMap;
import java.util.Map;

/**
 * The JSON-RPC errors of request handlers, safe to send: the SDK answers a handler's failure that is not an
 * {@link McpError} with the exception's message and the class names and messages of its causes. A handler wrapped
 * here answers such a failure with an internal error that names the method and says the log has the details, and
 * logs it; an {@link McpError} (invalid params, an unknown resource) is its own answer and passes as it is.
 */
final class ProtocolErrors {

    private static final Logger log = LoggerFactory.getLogger(ProtocolErrors.class);

    private ProtocolErrors() {
    }

    static Map<String, McpRequestHandler<?>> guarded(Map<String, McpRequestHandler<?>> handlers) {
        Map<String, McpRequestHandler<?>> guarded = new HashMap<>();
        handlers.forEach((method, handler) -> guarded.put(method, guarded(method, handler)));
        return Map.copyOf(guarded);
    }

    private static <T> McpRequestHandler<T> guarded(String method, McpRequestHandler<T> handler) {
        return (exchange, params) -> Mono.defer(() -> handler.handle(exchange, params)).onErrorMap(e -> !(e instanceof McpError), e -> {
            log.error("MCP {} failed", method, e);
            return McpError.builder(McpSchema.ErrorCodes.INTERNAL_ERROR)
                    .message("Internal error: the server failed while answering " + method + "; its log has the details").build();
        });
    }
}
