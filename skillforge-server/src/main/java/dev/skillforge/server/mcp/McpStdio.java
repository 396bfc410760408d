package dev.skillforge.server.mcp;

import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * MCP over a process's standard streams ({@code ./skillforge mcp}): one session, newline-delimited
 * JSON-RPC in on {@code in} and out on {@code out}, through the SDK's {@link StdioServerTransportProvider}.
 * Nothing but protocol messages may be written to {@code out}: the caller sends everything else
 * (the log included) to stderr. The session ends when {@code in} ends, as when the client exits.
 */
public final class McpStdio implements AutoCloseable {

    /** The longest message read, in characters: the HTTP door's body limit. A longer line ends the session. */
    static final int MAX_MESSAGE_CHARS = McpHttpDoor.MAX_BODY_BYTES;

    private final StdioServerTransportProvider transport;
    private final CountDownLatch inputEnded = new CountDownLatch(1);

    private McpStdio(SkillForgeMcp mcp, InputStream in, OutputStream out) {
        this.transport = new StdioServerTransportProvider(mcp.json(), new EndWatch(in), out, MAX_MESSAGE_CHARS);
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

    /** The input, noticing its end (or its failure, which ends it as well). */
    private final class EndWatch extends FilterInputStream {

        EndWatch(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            return noticingTheEnd(super::read);
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            return noticingTheEnd(() -> super.read(buffer, offset, length));
        }

        private int noticingTheEnd(IoRead read) throws IOException {
            try {
                int result = read.read();
                if (result < 0) {
                    inputEnded.countDown();
                }
                return result;
            } catch (IOException e) {
                inputEnded.countDown();
                throw e;
            }
        }
    }

    private interface IoRead {
        int read() throws IOException;
    }
}
