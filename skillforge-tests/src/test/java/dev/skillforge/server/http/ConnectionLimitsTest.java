package dev.skillforge.server.http;

import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.server.http.ConnectionLimits;
import dev.skillforge.server.config.SecuritySettings;
import dev.skillforge.testkit.SimScript;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Connections that send nothing useful cannot hold the server (regression: a connection that sent
 * only blank lines, before or between requests, stayed open forever, since every byte restarted
 * Jetty's idle timeout and the parser skips blank lines; a thousand of them shut everyone out).
 * Every test runs on loopback; clients get distinct addresses by binding to 127.0.0.2, 127.0.0.3…
 */
class ConnectionLimitsTest {

    private static final byte[] BLANK_LINE = "\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HEALTH = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path data;

    ServerHarness server(ConnectionLimits limits) throws IOException {
        return ServerHarness.builder(data, new SimScript()).security(SecuritySettings.defaults().withConnections(limits)).start();
    }

    @Test
    void blankLinesBeforeTheFirstRequestCannotHoldAConnection() throws Exception {
        ConnectionLimits limits = ConnectionLimits.DEFAULT.withIdleTimeout(Duration.ofSeconds(2));
        try (ServerHarness server = server(limits); Socket socket = connect("127.0.0.1", server)) {
            Duration held = sendUntilClosed(socket, BLANK_LINE, limits.headerTimeout().multipliedBy(4));
            assertThat(held).as("closed at the header deadline, not at once").isGreaterThan(limits.headerTimeout().dividedBy(2));
            assertThat(health(connect("127.0.0.1", server))).startsWith("HTTP/1.1 200");
        }
    }

    @Test
    void blankLinesAfterAResponseCannotHoldAConnectionButARequestInTimeIsAnswered() throws Exception {
        ConnectionLimits limits = ConnectionLimits.DEFAULT.withIdleTimeout(Duration.ofSeconds(2));
        try (ServerHarness server = server(limits); Socket socket = connect("127.0.0.1", server)) {
            assertThat(health(socket)).startsWith("HTTP/1.1 200");
            // Blank lines before a request are allowed (RFC 9112 §2.2): a request that follows them in time is answered...
            for (int i = 0; i < 3; i++) {
                socket.getOutputStream().write(BLANK_LINE);
                Thread.sleep(200);
            }
            assertThat(health(socket)).startsWith("HTTP/1.1 200");
            // ...but they never extend the time the next request has.
            Duration held = sendUntilClosed(socket, BLANK_LINE, limits.headerTimeout().multipliedBy(4));
            assertThat(held).isGreaterThan(limits.headerTimeout().dividedBy(2));
        }
    }

    @Test
    void aThousandBlankLineConnectionsDoNotShutOthersOut() throws Exception {
        ConnectionLimits limits = ConnectionLimits.DEFAULT.withIdleTimeout(Duration.ofSeconds(5));
        List<Held> attackers = new CopyOnWriteArrayList<>();
        AtomicBoolean attacking = new AtomicBoolean(true);
        // Every 200 ms, each attacker still open sends its bytes: far more often than any timeout.
        Thread pump = Thread.ofPlatform().daemon().start(() -> {
            while (attacking.get()) {
                attackers.forEach(Held::dribble);
                LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
            }
        });
        try (ServerHarness server = server(limits)) {
            for (int i = 0; i < 1000; i++) {
                attackers.add(new Held(open("127.0.0.2", server), BLANK_LINE));
            }
            for (int i = 0; i < 50; i++) {
                attackers.add(new Held(open("127.0.0.3", server), new byte[0])); // silent
            }
            for (int i = 0; i < 50; i++) { // headers a byte at a time
                SocketChannel channel = open("127.0.0.4", server);
                channel.write(ByteBuffer.wrap("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".getBytes(StandardCharsets.US_ASCII)));
                attackers.add(new Held(channel, "a".getBytes(StandardCharsets.US_ASCII)));
            }

            // A fresh client is answered while the attackers hold what they may hold.
            assertThat(health(connect("127.0.0.1", server))).startsWith("HTTP/1.1 200");
            attackers.forEach(Held::dribble);
            long blankLinesHeld = attackers.subList(0, 1000).stream().filter(Held::isOpen).count();
            assertThat(blankLinesHeld).as("one client holds at most its share").isLessThanOrEqualTo(limits.maxPerClient());
            assertThat(attackers.subList(1000, 1100)).as("the silent and slow ones are held too, until their deadline")
                    .anyMatch(Held::isOpen);

            // Every one of them is closed by the header deadline, blank lines and dribbled bytes notwithstanding.
            long deadline = System.nanoTime() + limits.headerTimeout().multipliedBy(3).toNanos();
            while (attackers.stream().anyMatch(Held::isOpen) && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            assertThat(attackers.stream().filter(Held::isOpen).count()).as("connections still open").isZero();
            assertThat(health(connect("127.0.0.1", server))).startsWith("HTTP/1.1 200");
        } finally {
            attacking.set(false);
            pump.join();
            attackers.forEach(Held::close);
        }
    }

    /**
     * Twelve clients holding their share each (1,200 connections where the server holds 1,000, FORGE_MAX_CONNECTIONS) kept a health check
     * waiting in the accept queue until a header deadline closed a connection, 8 to 10 s: the connections that waited
     * longest for a request now make room, so it is answered long before any deadline could have done it.
     */
    @Test
    void twelveClientsHoldingTheirShareEachDoNotKeepAHealthCheckWaiting() throws Exception {
        ConnectionLimits limits = ConnectionLimits.DEFAULT.withIdleTimeout(Duration.ofSeconds(60)).withMax(1000);
        List<SocketChannel> held = new ArrayList<>();
        try (ServerHarness server = server(limits)) {
            for (int client = 2; client < 14; client++) {
                for (int i = 0; i < limits.maxPerClient(); i++) {
                    held.add(open("127.0.0." + client, server));
                }
            }
            long start = System.nanoTime();
            assertThat(health(connect("127.0.0.1", server))).startsWith("HTTP/1.1 200");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("answered before any header deadline (%s) could close a connection",
                    limits.headerTimeout()).isLessThan(limits.headerTimeout().dividedBy(2));
        } finally {
            held.forEach(channel -> {
                try {
                    channel.close();
                } catch (IOException ignored) {
                    // already gone
                }
            });
        }
    }

    @Test
    void oneClientCannotHoldMoreThanItsShare() throws Exception {
        ConnectionLimits limits = ConnectionLimits.DEFAULT.withMaxPerClient(3);
        try (ServerHarness server = server(limits)) {
            List<Socket> held = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                held.add(connect("127.0.0.2", server));
            }
            assertThat(health(held.getFirst())).startsWith("HTTP/1.1 200");
            try (Socket fourth = connect("127.0.0.2", server)) {
                fourth.setSoTimeout((int) limits.headerTimeout().dividedBy(2).toMillis());
                assertThat(fourth.getInputStream().read()).as("closed at once, long before any deadline").isEqualTo(-1);
            }
            assertThat(health(connect("127.0.0.3", server))).as("another client is served").startsWith("HTTP/1.1 200");
            held.removeFirst().close();
            String answer = "";
            for (int attempt = 0; attempt < 50 && !answer.startsWith("HTTP/1.1 200"); attempt++) {
                try {
                    answer = health(connect("127.0.0.2", server)); // once the server has seen the close, the client may have it back
                } catch (IOException notYet) {
                    Thread.sleep(100);
                }
            }
            assertThat(answer).startsWith("HTTP/1.1 200");
            for (Socket socket : held) {
                socket.close();
            }
        }
    }

    @Test
    void aClientIsAnIpv4AddressOrAnIpv6Slash64() throws Exception {
        assertThat(ClientConnectionLimit.client(address("127.0.0.2"))).isEqualTo("127.0.0.2");
        assertThat(ClientConnectionLimit.client(address("::ffff:10.0.0.1"))).isEqualTo("10.0.0.1");
        assertThat(ClientConnectionLimit.client(address("2001:db8:1:2::5"))).isEqualTo("2001:db8:1:2::/64")
                .isEqualTo(ClientConnectionLimit.client(address("2001:db8:1:2:ffff:ffff:ffff:ffff")));
        assertThat(ClientConnectionLimit.client(address("2001:db8:1:3::5"))).isEqualTo("2001:db8:1:3::/64");
        assertThat(ClientConnectionLimit.client(null)).isEqualTo("local");
    }

    private static InetSocketAddress address(String literal) throws IOException {
        return new InetSocketAddress(InetAddress.getByName(literal), 1234); // literals only: nothing is resolved
    }

    /** An attacker's connection: what it sends every round, and whether the server still keeps it. */
    private static final class Held {
        private final SocketChannel channel;
        private final byte[] bytes;
        private volatile boolean open = true;

        Held(SocketChannel channel, byte[] bytes) {
            this.channel = channel;
            this.bytes = bytes;
        }

        boolean isOpen() {
            return open;
        }

        /** Sends its bytes, unless the server has closed the connection (then notes it). */
        synchronized void dribble() {
            if (!open) {
                return;
            }
            try {
                if (channel.read(ByteBuffer.allocate(4096)) < 0) {
                    throw new IOException("closed by the server");
                }
                channel.write(ByteBuffer.wrap(bytes));
            } catch (IOException closed) {
                open = false;
                close();
            }
        }

        void close() {
            try {
                channel.close();
            } catch (IOException ignored) {
                // already gone
            }
        }
    }

    private static SocketChannel open(String from, ServerHarness server) throws IOException {
        SocketChannel channel = SocketChannel.open();
        channel.bind(new InetSocketAddress(from, 0));
        channel.socket().connect(new InetSocketAddress("127.0.0.1", server.server.port()), 5_000); // a full server accepts none
        channel.configureBlocking(false);
        return channel;
    }

    private static Socket connect(String from, ServerHarness server) throws IOException {
        Socket socket = new Socket();
        socket.bind(new InetSocketAddress(from, 0));
        socket.connect(new InetSocketAddress("127.0.0.1", server.server.port()), 5_000);
        socket.setSoTimeout(10_000);
        return socket;
    }

    /** Asks for {@code /healthz} on this connection and reads the whole answer (it has a Content-Length). */
    private static String health(Socket socket) throws IOException {
        socket.getOutputStream().write(HEALTH);
        InputStream in = socket.getInputStream();
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("closed before an answer: " + head);
            }
            head.append((char) b);
        }
        String text = head.toString();
        int at = text.toLowerCase().indexOf("content-length:");
        int length = Integer.parseInt(text.substring(at + 15, text.indexOf("\r\n", at)).strip());
        return text + new String(in.readNBytes(length), StandardCharsets.UTF_8);
    }

    /** Sends {@code bytes} every 200 ms until the server closes the connection; how long it stayed open. */
    private static Duration sendUntilClosed(Socket socket, byte[] bytes, Duration atMost) throws Exception {
        long start = System.nanoTime();
        OutputStream out = socket.getOutputStream();
        socket.setSoTimeout(200);
        while (System.nanoTime() - start < atMost.toNanos()) {
            try {
                out.write(bytes);
                if (socket.getInputStream().read() < 0) {
                    return Duration.ofNanos(System.nanoTime() - start);
                }
            } catch (SocketTimeoutException stillOpen) {
                continue; // nothing to read: the server keeps it
            } catch (IOException closed) {
                return Duration.ofNanos(System.nanoTime() - start);
            }
        }
        throw new AssertionError("the connection was still open after " + atMost.toMillis() + " ms of blank lines");
    }
}
