package dev.skillforge.server.mcp;

import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * MCP over a process's standard streams ({@code ./skillforge mcp}): one session, newline-delimited
 * JSON-RPC in on {@code in} and out on {@code out} ({@link StdioTransport}). Nothing but protocol
 * messages may be written to {@code out}: the caller sends everything else (the log included) to
 * stderr. The session ends when {@code in} ends, as when the client exits.
 */
public final class McpStdio implements AutoCloseable {

    /** The longest message read: the HTTP door's body limit. A longer line is answered with an error and skipped. */
    static final int MAX_MESSAGE_BYTES = McpHttpDoor.MAX_BODY_BYTES;

    private final StdioTransport transport;
    private final CountDownLatch inputEnded = new CountDownLatch(1);

    private McpStdio(SkillForgeMcp mcp, InputStream in, OutputStream out) {
        this.transport = new StdioTransport(mcp.json(), in, out, MAX_MESSAGE_BYTES, inputEnded::countDown);
        transport.setSessionFactory(mcp.stdioSessions(transport.protocolVersions()));
    }

    /** Starts serving {@code mcp}: reading {@code in} and answering on {@code out}. */
    public static McpStdio start(SkillForgeMcp mcp, InputStream in, OutputStream out) {
        return new McpStdio(mcp, in, out);
    }

    /** Returns once the input ended (the client closed it or exited). */
    public void awaitEnd() throws InterruptedException {
        inputEnded.await();
    }

    @Override
    public void close() {
        transport.closeGracefully().block(Duration.ofSeconds(5));
    }
}
