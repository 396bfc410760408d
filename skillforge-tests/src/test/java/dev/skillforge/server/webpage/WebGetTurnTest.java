package dev.skillforge.server.webpage;

import com.sun.net.httpserver.HttpServer;
import dev.skillforge.server.config.SecuritySettings;
import dev.skillforge.server.webpage.WebSettings;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.testkit.SimScript;
import dev.skillforge.testkit.SseClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code web get} in a turn: the model reads the page's Markdown in the tool output, the client gets a source event; off by default. */
class WebGetTurnTest {

    @Test
    void theAgentReadsAPageAndThePageIsASource(@TempDir Path data) throws Exception {
        HttpServer pages = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        pages.createContext("/brew", exchange -> {
            byte[] body = "<html><head><title>Brew guide</title></head><body><main><h2>Steps</h2><p>Steep 16 hours.</p></main></body></html>"
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "text/html; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        pages.start();
        String url = "http://127.0.0.1:" + pages.getAddress().getPort() + "/brew";
        SimScript script = new SimScript(SimReply.of("<shell>web get " + url + "</shell>"), SimReply.of("Read it."));
        try (ServerHarness server = ServerHarness.builder(data, script)
                .security(SecuritySettings.defaults().withWeb(WebSettings.forTestsOnLoopbackPort(pages.getAddress().getPort()))).start()) {
            List<SseClient.Event> events = SseClient.postForEvents(server.url("/api/agent"), SseClient.userMessage("Learn from " + url));

            SseClient.Event source = events.stream().filter(e -> e.type().equals("source")).findFirst().orElseThrow();
            assertThat(source.text("url")).isEqualTo(url);
            assertThat(source.text("title")).isEqualTo("Brew guide");
            String toolOutput = events.stream().filter(e -> e.type().equals("tool-output")).findFirst().orElseThrow().text("toolOutput");
            assertThat(toolOutput).isEqualTo("$ web get " + url + "\n# Brew guide\nSource: " + url + "\n(25 characters)\n\n## Steps\n\nSteep 16 hours.");
            assertThat(server.sim.requests().getFirst().json().path("messages").get(0).path("content").asText())
                    .as("the system prompt tells the model about web get when it is on").contains("web get URL");
        } finally {
            pages.stop(0);
        }
    }

    @Test
    void webGetIsOffByDefault(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript(SimReply.of("<shell>web get https://example.com/</shell>"), SimReply.of("Ok.")))) {
            List<SseClient.Event> events = SseClient.postForEvents(server.url("/api/agent"), Json.write(Json.object().set("messages",
                    Json.MAPPER.createArrayNode().add(Json.object().put("role", "user").put("content", "Read example.com")))));

            SseClient.Event result = events.stream().filter(e -> e.type().equals("tool-result")).findFirst().orElseThrow();
            assertThat(result.text("result")).isEqualTo(WebCommands.OFF);
            assertThat(events).noneMatch(e -> e.type().equals("source"));
            assertThat(server.sim.requests().getFirst().json().path("messages").get(0).path("content").asText()).doesNotContain("web get");
        }
    }
}
