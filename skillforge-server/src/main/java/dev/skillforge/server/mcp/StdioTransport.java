package dev.skillforge.server.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.server.json.Json;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpServerSession;
import io.modelcontextprotocol.spec.McpServerTransport;
import io.modelcontextprotocol.spec.McpServerTransportProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * MCP over a process's standard streams, one session: a JSON-RPC message per line in, a message per line out. In
 * place of the SDK's stdio transport, which ends the session without a word at the first line it cannot read. Here
 * each line is checked ({@link IncomingMessage}); one that is not a message the server can take is answered with a
 * JSON-RPC error saying why (with the request's id, or {@code null} when it had no valid one), a line longer than
 * {@code maxLineBytes} is skipped to its end and answered likewise, a blank line is ignored, and the session goes on.
 * It ends when the input ends. Each outgoing message is written whole, under one lock.
 */
final class StdioTransport implements McpServerTransportProvider {

    private static final Logger log = LoggerFactory.getLogger(StdioTransport.class);

    private final McpJsonMapper json;
    private final InputStream in;
    private final OutputStream out;
    private final int maxLineBytes;
    private final Runnable onInputEnd;
    private final Object writing = new Object();
    private volatile McpServerSession session;
    private volatile boolean closing;

    /** @param onInputEnd called once the input ended (or failed) and the session was closed */
    StdioTransport(McpJsonMapper json, InputStream in, OutputStream out, int maxLineBytes, Runnable onInputEnd) {
        this.json = json;
        this.in = in;
        this.out = out;
        this.maxLineBytes = maxLineBytes;
        this.onInputEnd = onInputEnd;
    }

    @Override
    public void setSessionFactory(McpServerSession.Factory factory) {
        session = factory.create(new SessionTransport());
        Thread.ofPlatform().daemon().name("mcp-stdin").start(this::read);
    }

    @Override
    public Mono<Void> notifyClients(String method, Object params) {
        return session.sendNotification(method, params);
    }

    @Override
    public Mono<Void> closeGracefully() {
        return session == null ? Mono.empty() : session.closeGracefully();
    }

    private void read() {
        StdinLines lines = new StdinLines(in, maxLineBytes);
        try {
            byte[] line;
            while (!closing && (line = lines.next()) != null) {
                if (line == StdinLines.TOO_LONG) {
                    answer(new MessageRefusal(MessageRefusal.INVALID_REQUEST, "Invalid Request: the message is longer than "
                            + String.format("%,d", maxLineBytes) + " bytes; it was skipped", null).response());
                } else if (!isBlank(line)) {
                    handle(line);
                }
            }
        } catch (IOException e) {
            log.debug("MCP stdin could not be read: {}", e.toString());
        } finally {
            closing = true;
            session.close();
            onInputEnd.run();
        }
    }

    private void handle(byte[] line) {
        IncomingMessage message;
        McpSchema.JSONRPCMessage parsed;
        try {
            message = IncomingMessage.check(line, json);
            parsed = McpSchema.deserializeJsonRpcMessage(json, new String(message.body(), StandardCharsets.UTF_8));
        } catch (MessageRefusal refusal) {
            answer(refusal.response());
            return;
        } catch (IOException | RuntimeException e) {
            // The check lets through only what the SDK reads; should it still fail, the client hears of it all the same.
            log.warn("MCP message not read after its check: {}", e.toString());
            answer(new MessageRefusal(MessageRefusal.INVALID_REQUEST, "Invalid Request: the message could not be read", null).response());
            return;
        }
        session.handle(parsed).subscribe(null, error -> log.warn("MCP {} failed: {}", message.method(), error.toString()));
    }

    private void answer(JsonNode error) {
        write(Json.bytes(error));
    }

    private void write(byte[] message) {
        synchronized (writing) {
            try {
                out.write(message);
                out.write('\n');
                out.flush();
            } catch (IOException e) {
                if (!closing) {
                    log.warn("MCP stdout could not be written: {}", e.toString());
                }
            }
        }
    }

    private static boolean isBlank(byte[] line) {
        for (byte b : line) {
            if (b != ' ' && b != '\t' && b != '\r') {
                return false;
            }
        }
        return true;
    }

    /** The session's side: its messages out, and the SDK's conversions. */
    private final class SessionTransport implements McpServerTransport {

        @Override
        public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
            return Mono.fromCallable(() -> json.writeValueAsBytes(message)).doOnNext(StdioTransport.this::write).then();
        }

        @Override
        public <T> T unmarshalFrom(Object data, TypeRef<T> type) {
            return json.convertValue(data, type);
        }

        @Override
        public Mono<Void> closeGracefully() {
            return Mono.fromRunnable(() -> closing = true);
        }
    }
}
