package dev.skillforge.server.mcp;

import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * An SDK client transport (HTTP or stdio) that remembers the requests its client sent and can send
 * a {@code notifications/cancelled} for one of them: the SDK's client has no call for that, and needs
 * the request's JSON-RPC id, which only the transport sees.
 */
final class RecordingTransport implements McpClientTransport {

    private final McpClientTransport delegate;
    private final List<McpSchema.JSONRPCRequest> sent = new CopyOnWriteArrayList<>();

    RecordingTransport(McpClientTransport delegate) {
        this.delegate = delegate;
    }

    /** The id of the last request of {@code method} this client sent. */
    Object lastRequestId(String method) {
        return sent.reversed().stream().filter(request -> request.method().equals(method)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + method + " request was sent")).id();
    }

    /** Sends {@code notifications/cancelled} for {@code requestId}, as a client does when its user stops a call. */
    void cancel(Object requestId) {
        delegate.sendMessage(new McpSchema.JSONRPCNotification(McpSchema.JSONRPC_VERSION, "notifications/cancelled",
                Map.of("requestId", requestId, "reason", "the user stopped it"))).block(Duration.ofSeconds(10));
    }

    @Override
    public Mono<Void> connect(Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
        return delegate.connect(handler);
    }

    @Override
    public void setExceptionHandler(Consumer<Throwable> handler) {
        delegate.setExceptionHandler(handler);
    }

    @Override
    public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
        if (message instanceof McpSchema.JSONRPCRequest request) {
            sent.add(request);
        }
        return delegate.sendMessage(message);
    }

    @Override
    public Mono<Void> closeGracefully() {
        return delegate.closeGracefully();
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
        return delegate.unmarshalFrom(data, typeRef);
    }

    @Override
    public List<String> protocolVersions() {
        return delegate.protocolVersions();
    }
}
