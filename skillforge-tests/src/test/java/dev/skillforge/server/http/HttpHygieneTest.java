package dev.skillforge.server.http;

import dev.skillforge.testkit.SseClient;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.server.http.ConnectionLimits;
import dev.skillforge.server.config.SecuritySettings;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.testkit.SimScript;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * HTTP hygiene: Jetty's own errors are JSON that leaks nothing, every body has a limit, and idle,
 * slow-header and slow-body clients are cut off while a long event stream is not.
 */
class HttpHygieneTest {

    @TempDir
    Path data;

    record RawAnswer(int status, String head, String body) {
    }

    static RawAnswer raw(int port, byte[] request) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(request);
            socket.getOutputStream().flush();
            socket.shutdownOutput();
            String text = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int split = text.indexOf("\r\n\r\n");
            return new RawAnswer(Integer.parseInt(text.substring(9, 12)), text.substring(0, split), text.substring(split + 4));
        }
    }

    static RawAnswer raw(int port, String request) throws IOException {
        return raw(port, request.getBytes(StandardCharsets.ISO_8859_1));
    }

    @Test
    void jettysOwnErrorsAreJsonWithTheSecurityHeadersAndLeakNothing() throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript())) {
            int port = server.server.port();
            Map<String, Integer> requests = Map.of(
                    "GET /api/conversations/a%00secret-path HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400,
                    "GET /api/skills/%ZZsecret-path HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400,
                    "POST /api/agent HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc\r\n\r\n", 400,
                    "GET /secret-path HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n", 400,
                    "GET /" + "secret-path/".repeat(6000) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 414,
                    "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + "y".repeat(20_000) + "\r\n\r\n", 431,
                    "GET /../../etc/secret-path HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400);
            for (var request : requests.entrySet()) {
                RawAnswer answer = raw(port, request.getKey());
                String what = request.getKey().substring(0, 40);
                assertThat(answer.status()).as(what).isEqualTo(request.getValue());
                assertThat(answer.head()).as(what).containsIgnoringCase("Content-Type: application/json")
                        .contains("Content-Security-Policy: " + ApiServer.CONTENT_SECURITY_POLICY)
                        .contains("X-Content-Type-Options: nosniff").doesNotContainIgnoringCase("Server:");
                var error = Json.parse(answer.body()).path("error");
                assertThat(error.path("code").asText()).as(what).isNotBlank();
                assertThat(answer.body()).as(what).doesNotContain("secret-path").doesNotContain("Exception").doesNotContain("<html")
                        .doesNotContain("jetty");
            }
        }
    }

    @Test
    void everyRouteThatReadsABodyHasALimit() throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript())) {
            String id = SseClient.send("POST", server.url("/api/conversations"), "{}").json().path("id").asText();
            Map<String, Integer> limits = Map.of(
                    "POST /api/agent", RequestBodies.MAX_UPLOAD_BODY_BYTES,
                    "POST /api/conversations", 64 * 1024,
                    "PATCH /api/conversations/" + id, 64 * 1024,
                    "POST /api/conversations/" + id + "/messages", RequestBodies.MAX_UPLOAD_BODY_BYTES);
            for (var limit : limits.entrySet()) {
                String[] route = limit.getKey().split(" ");
                String body = "{\"title\":\"" + "t".repeat(limit.getValue()) + "\"}";
                SseClient.Answer answer = SseClient.send(route[0], server.url(route[1]), body);
                assertThat(answer.status()).as(limit.getKey()).isEqualTo(413);
                assertThat(answer.json().path("error").path("code").asText()).isEqualTo("body_too_large");
            }
            assertThat(SseClient.get(server.url("/healthz")).status()).isEqualTo(200);
        }
    }

    /**
     * 17.7 MB of empty objects, within the body limit, was read into a tree of 546 MB (1.2 GB with the body's copies),
     * and four at once failed the server with 500s: each is now refused while it is read, at the token limit, and the
     * server goes on serving.
     */
    @Test
    void fourBodiesOfEmptyObjectsAtOnceAreRefusedWhileTheyAreRead() throws Exception {
        StringBuilder json = new StringBuilder(17_700_100).append("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"x\":[");
        while (json.length() < 17_700_000) {
            json.append("{},");
        }
        String body = json.append("{}]}").toString();
        try (ServerHarness server = new ServerHarness(data, new SimScript(SimReply.of("Should not be asked.")));
             var clients = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<SseClient.Answer>> answers = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                answers.add(clients.submit(() -> SseClient.postForAnswer(server.url("/api/agent"), body)));
            }
            for (Future<SseClient.Answer> answer : answers) {
                assertThat(answer.get().status()).isEqualTo(413);
                assertThat(answer.get().json().path("error").path("code").asText()).isEqualTo("body_too_large");
                assertThat(answer.get().json().path("error").path("message").asText())
                        .isEqualTo("The request body is too large to read: it holds more than 500,000 values, keys and brackets,"
                                + " the most one document may");
            }
            assertThat(server.sim.requests()).isEmpty();
            assertThat(SseClient.get(server.url("/healthz")).status()).isEqualTo(200);
        }
    }

    ServerHarness withIdleTimeout(Duration idle, SimScript script) throws IOException {
        return ServerHarness.builder(data, script)
                .security(SecuritySettings.defaults().withConnections(ConnectionLimits.DEFAULT.withIdleTimeout(idle))).start();
    }

    @Test
    void anIdleConnectionIsClosed() throws Exception {
        try (ServerHarness server = withIdleTimeout(Duration.ofSeconds(2), new SimScript())) {
            try (Socket socket = new Socket("127.0.0.1", server.server.port())) {
                socket.setSoTimeout(10_000);
                long start = System.nanoTime();
                assertThat(socket.getInputStream().read()).isEqualTo(-1);
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(1500), Duration.ofSeconds(5));
            }
        }
    }

    @Test
    void headersThatArriveTooSlowlyAreCutOffEvenWhenBytesKeepComing() throws Exception {
        try (ServerHarness server = withIdleTimeout(Duration.ofSeconds(2), new SimScript())) {
            try (Socket socket = new Socket("127.0.0.1", server.server.port())) {
                socket.setSoTimeout(10_000);
                OutputStream out = socket.getOutputStream();
                out.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".getBytes(StandardCharsets.US_ASCII));
                long start = System.nanoTime();
                boolean cut = false;
                for (int i = 0; i < 40 && !cut; i++) { // a byte every 300 ms: the idle timeout (2 s) never fires
                    Thread.sleep(300);
                    try {
                        out.write('a');
                        out.flush();
                    } catch (SocketException closed) {
                        cut = true;
                    }
                    if (!cut && socket.getInputStream().available() == 0 && isClosed(socket)) {
                        cut = true;
                    }
                }
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                assertThat(cut).as("the connection was closed").isTrue();
                assertThat(took).isBetween(Duration.ofMillis(1800), Duration.ofSeconds(6));
            }
            assertThat(SseClient.get(server.url("/healthz")).status()).isEqualTo(200);
        }
    }

    /** True once the peer has closed: a read sees the end (within a short wait). */
    private static boolean isClosed(Socket socket) throws IOException {
        int timeout = socket.getSoTimeout();
        socket.setSoTimeout(1);
        try {
            return socket.getInputStream().read() == -1;
        } catch (java.net.SocketTimeoutException open) {
            return false;
        } catch (SocketException reset) {
            return true;
        } finally {
            socket.setSoTimeout(timeout);
        }
    }

    @Test
    void aBodyThatArrivesTooSlowlyIsRefused() throws Exception {
        try (ServerHarness server = withIdleTimeout(Duration.ofSeconds(5), new SimScript())) {
            try (Socket socket = new Socket("127.0.0.1", server.server.port())) {
                socket.setSoTimeout(15_000);
                OutputStream out = socket.getOutputStream();
                out.write(("POST /api/conversations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        + "Content-Length: 20000\r\n\r\n{\"title\":\"").getBytes(StandardCharsets.US_ASCII));
                long start = System.nanoTime();
                InputStream in = socket.getInputStream();
                String answer = null;
                for (int i = 0; i < 60 && answer == null; i++) { // 20 bytes a second, far below 1 KiB/s
                    Thread.sleep(250);
                    try {
                        out.write("aaaaa".getBytes(StandardCharsets.US_ASCII));
                    } catch (SocketException closed) {
                        answer = "closed";
                    }
                    if (in.available() > 0) {
                        answer = new String(in.readNBytes(in.available()), StandardCharsets.ISO_8859_1);
                    }
                }
                assertThat(answer).as("the server gave up on the body").isNotNull();
                if (!answer.equals("closed")) {
                    assertThat(Integer.parseInt(answer.substring(9, 12))).as(answer).isBetween(400, 499);
                }
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(12));
            }
            assertThat(SseClient.send("GET", server.url("/api/conversations"), null).json().path("total").asInt()).isZero();
        }
    }

    @Test
    void aLongQuietEventStreamOutlivesTheIdleTimeout() throws Exception {
        SimScript script = new SimScript(SimReply.of("Thinking", " slowly.").withDelay(Duration.ofMillis(3500)));
        try (ServerHarness server = withIdleTimeout(Duration.ofSeconds(2), script)) {
            List<SseClient.Event> events = SseClient.postForEvents(server.url("/api/agent"), SseClient.userMessage("take your time"));
            assertThat(events.getLast().type()).isEqualTo("done");
            assertThat(events).extracting(e -> e.data().path("content").asText()).contains(" slowly.");
        }
    }
}
