package dev.skillforge.server.provider;

import com.sun.net.httpserver.HttpServer;
import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.agent.ProviderException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A provider's body read line by line over real loopback HTTP: a line past {@link StreamingHttp#MAX_LINE_BYTES}
 * is refused as a provider error instead of being collected (a 10 MB line took 20 s of rescanning),
 * while a long line under it is read whole; a line dripped byte by byte is stopped after the idle time.
 */
class StreamingHttpTest {

    private static final StreamingHttp.Timeouts TIMEOUTS = new StreamingHttp.Timeouts(Duration.ofSeconds(10), Duration.ofSeconds(30));

    private HttpServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    @Test
    void aTenMegabyteLineIsRefusedWithAProviderErrorNamingTheCap() throws Exception {
        serve(200, "data: " + "x".repeat(10 * 1024 * 1024) + "\n\n");

        try (StreamingHttp.Response response = open()) {
            assertThatThrownBy(() -> readAll(response))
                    .isInstanceOfSatisfying(ProviderException.class, e -> assertThat(e.code()).isEqualTo("provider_line_too_long"))
                    .hasMessage("The provider sent a line longer than 4194304 bytes, the most this server reads as one line"
                            + " of a stream: the stream was closed");
        }
        assertThat(StreamingHttp.MAX_LINE_BYTES).isEqualTo(4 * 1024 * 1024);
    }

    @Test
    void aThreeMegabyteLineIsReadWholeBetweenShortOnes() throws Exception {
        String longLine = "data: {\"text\":\"" + "é".repeat(1_500_000) + "\"}";
        serve(200, "data: first\r\n\r\n" + longLine + "\n\ndata: last\r\r");

        try (StreamingHttp.Response response = open()) {
            assertThat(readAll(response)).containsExactly("data: first", "", longLine, "", "data: last", "");
        }
    }

    @Test
    void anErrorBodyOfOneEndlessLineIsReadUpToItsLimitWithoutFailing() throws Exception {
        serve(502, "<html>" + "bad gateway ".repeat(1_000_000) + "</html>");

        try (StreamingHttp.Response response = open()) {
            assertThat(response.status()).isEqualTo(502);
            assertThat(response.readBody(100)).isEqualTo("<html>" + "bad gateway ".repeat(7) + "bad gatewa");
        }
    }

    @Test
    void aProviderDrippingALineByteByByteIsStoppedOnceNoWholeLineCameForTheIdleTime() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/", exchange -> {
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write("data: first\n\n".getBytes(StandardCharsets.UTF_8));
                for (int i = 0; i < 100; i++) { // a byte every 100 ms, well within the idle time, never a line break
                    out.write('x');
                    out.flush();
                    Thread.sleep(100);
                }
            } catch (IOException | InterruptedException clientLeft) {
                // the reader closed the connection: what the stop does
            }
        });
        server.start();
        StreamingHttp.Timeouts oneSecond = new StreamingHttp.Timeouts(Duration.ofSeconds(10), Duration.ofSeconds(1));
        List<String> lines = new ArrayList<>();

        try (StreamingHttp.Response response = StreamingHttp.open(ProviderCalls.post(uri(), "{}".getBytes(StandardCharsets.UTF_8))
                .build(), oneSecond, new Cancellation())) {
            assertThatThrownBy(() -> response.readLines(lines::add))
                    .isInstanceOfSatisfying(ProviderException.class, e -> assertThat(e.code()).isEqualTo("provider_timeout"))
                    .hasMessage("The provider stream stalled: no whole line arrived for 1 s");
        }
        assertThat(lines).containsExactly("data: first", "");
    }

    private void serve(int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/", exchange -> {
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(status, 0);
            try (OutputStream out = exchange.getResponseBody()) {
                for (int at = 0; at < bytes.length; at += 64 * 1024) { // in pieces, as a stream arrives
                    out.write(bytes, at, Math.min(64 * 1024, bytes.length - at));
                    out.flush();
                }
            } catch (IOException clientLeft) {
                // the reader closed the connection: what the refusal does
            }
        });
        server.start();
    }

    private StreamingHttp.Response open() throws ProviderException {
        return StreamingHttp.open(ProviderCalls.post(uri(), "{}".getBytes(StandardCharsets.UTF_8)).build(), TIMEOUTS, new Cancellation());
    }

    private URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/v1/chat/completions");
    }

    private static List<String> readAll(StreamingHttp.Response response) throws ProviderException {
        List<String> lines = new ArrayList<>();
        assertThat(response.readLines(lines::add)).isTrue(); // to the body's end
        return lines;
    }
}
