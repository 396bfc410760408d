package dev.skillforge.server.mcp;

import io.modelcontextprotocol.server.McpRequestHandler;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** A handler's failure reaches the client as a JSON-RPC error that names the method, never the exception's texts. */
class ProtocolErrorsTest {

    private static final McpRequestHandler<Object> FAILS = (exchange, params) -> {
        throw new UncheckedIOException(new IOException("/srv/skillforge/data/skills/x/SKILL.md: Permission denied"));
    };
    private static final McpRequestHandler<Object> REFUSES = (exchange, params) ->
            Mono.error(McpError.builder(McpSchema.ErrorCodes.INVALID_PARAMS).message("Unknown tool: x").build());

    @Test
    void anUnexpectedFailureIsAnInternalErrorThatNamesOnlyTheMethod() {
        Map<String, McpRequestHandler<?>> handlers = ProtocolErrors.guarded(Map.of("resources/read", FAILS));

        McpError error = catchThrowableOfType(McpError.class, () -> handlers.get("resources/read").handle(null, null).block());

        assertThat(error.getJsonRpcError().code()).isEqualTo(McpSchema.ErrorCodes.INTERNAL_ERROR);
        assertThat(error.getJsonRpcError().message())
                .isEqualTo("Internal error: the server failed while answering resources/read; its log has the details");
        assertThat(error.getJsonRpcError().data()).isNull();
    }

    @Test
    void aProtocolErrorOfTheHandlerIsItsOwnAnswer() {
        Map<String, McpRequestHandler<?>> handlers = ProtocolErrors.guarded(Map.of("tools/call", REFUSES));

        McpError error = catchThrowableOfType(McpError.class, () -> handlers.get("tools/call").handle(null, null).block());

        assertThat(error.getJsonRpcError().code()).isEqualTo(McpSchema.ErrorCodes.INVALID_PARAMS);
        assertThat(error.getJsonRpcError().message()).isEqualTo("Unknown tool: x");
    }
}
