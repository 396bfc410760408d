package dev.skillforge.server.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.server.config.SecuritySettings;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.testkit.SimScript;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The doors of {@code /mcp} are the API's: the bearer token when the server has one, a loopback
 * {@code Host} when it has none, no {@code Origin} of another site (the MCP specification's defence
 * against DNS rebinding), JSON bodies only, and the API's body limit. Each refusal is the API's JSON
 * error, answered before the SDK's servlet reads anything.
 */
class McpHttpDoorSecurityTest {

    private static final String TOKEN = "mcp-door-test-token-0123456789";
    private static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
            + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}";
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void withATokenTheSdkClientNeedsItAsABearerHeader(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript(SimReply.of("Hello with the token.")),
                SecuritySettings.defaults().withApiToken(TOKEN))) {
            McpSyncClient anonymous = client(server, HttpRequest.newBuilder());
            assertThatThrownBy(anonymous::initialize).as("no token, no session").isInstanceOf(RuntimeException.class);
            anonymous.close();

            McpSyncClient wrong = client(server, HttpRequest.newBuilder().header("Authorization", "Bearer " + TOKEN + "-wrong"));
            assertThatThrownBy(wrong::initialize).isInstanceOf(RuntimeException.class);
            wrong.close();

            McpSyncClient signedIn = client(server, HttpRequest.newBuilder().header("Authorization", "Bearer " + TOKEN));
            signedIn.initialize();
            McpSchema.CallToolResult answer = signedIn.callTool(McpSchema.CallToolRequest.builder("chat")
                    .arguments(Map.of("prompt", "Hello?")).build());
            assertThat(McpDoorContract.structured(answer)).containsEntry("answer", "Hello with the token.");
            signedIn.closeGracefully();

            HttpResponse<String> refused = post(server.url("/mcp"), INITIALIZE, Map.of());
            assertThat(refused.statusCode()).isEqualTo(401);
            assertThat(refused.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"skillforge\"");
            assertError(refused, "unauthorized", "This server needs its API token: send Authorization: Bearer TOKEN");
        }
    }

    @Test
    void aForeignOriginIsRefusedOnEveryMethodAndTheServersOwnPasses(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript())) {
            HttpResponse<String> foreign = post(server.url("/mcp"), INITIALIZE, Map.of("Origin", "http://evil.example"));
            assertThat(foreign.statusCode()).isEqualTo(403);
            assertError(foreign, "cross_origin", "Requests from another site are refused: the Origin is not this server's");

            HttpResponse<String> foreignGet = HTTP.send(HttpRequest.newBuilder(URI.create(server.url("/mcp")))
                    .header("Origin", "http://evil.example").header("Accept", "text/event-stream").GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(foreignGet.statusCode()).as("the stream a page would open").isEqualTo(403);

            HttpResponse<String> own = post(server.url("/mcp"), INITIALIZE, Map.of("Origin", server.url("")));
            assertThat(own.statusCode()).isEqualTo(200);
            assertThat(own.headers().firstValue("Mcp-Session-Id")).isPresent();
            assertThat(Json.parse(own.body()).path("result").path("serverInfo").path("name").asText()).isEqualTo("skillforge");
        }
    }

    @Test
    void withoutATokenOnlyALoopbackHostIsServed(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript())) {
            String rebound = rawPost(server.server.port(), "evil.example.com", INITIALIZE);
            assertThat(rebound).startsWith("HTTP/1.1 403").contains("\"code\":\"forbidden_host\"");
            assertThat(rawPost(server.server.port(), "localhost:" + server.server.port(), INITIALIZE)).startsWith("HTTP/1.1 200");
        }
    }

    @Test
    void bodiesAreJsonAndWithinTheApisLimit(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript())) {
            HttpResponse<String> text = HTTP.send(HttpRequest.newBuilder(URI.create(server.url("/mcp")))
                    .header("Content-Type", "text/plain").header("Accept", "application/json, text/event-stream")
                    .POST(HttpRequest.BodyPublishers.ofString(INITIALIZE)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(text.statusCode()).isEqualTo(415);
            assertError(text, "unsupported_media_type", "Send the body as JSON, with Content-Type: application/json");

            String huge = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"pad\":\"" + "x".repeat(McpHttpDoor.MAX_BODY_BYTES) + "\"}}";
            HttpResponse<String> declared = post(server.url("/mcp"), huge, Map.of());
            assertThat(declared.statusCode()).isEqualTo(413);
            assertError(declared, "body_too_large", "The request body is over the limit of " + McpHttpDoor.MAX_BODY_BYTES + " bytes");

            // Chunked, with no length declared: stopped at the limit while reading.
            HttpResponse<String> chunked = HTTP.send(HttpRequest.newBuilder(URI.create(server.url("/mcp")))
                    .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                    .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(huge.getBytes(StandardCharsets.UTF_8))))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(chunked.statusCode()).isEqualTo(413);
        }
    }

    /**
     * A client of the 2026-07-28 revision sends its first request with no session and no
     * {@code initialize}: this 2025-11-25 transport answers 400, after which a client that speaks both
     * revisions falls back to the {@code initialize} handshake.
     */
    @Test
    void aSessionlessRequestOfTheNextRevisionIsA400(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript())) {
            HttpResponse<String> discover = post(server.url("/mcp"), "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\","
                    + "\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}", Map.of("MCP-Protocol-Version", "2026-07-28"));
            assertThat(discover.statusCode()).isEqualTo(400);
            assertThat(discover.body()).contains("Session ID required");
            assertThat(post(server.url("/mcp"), INITIALIZE, Map.of()).statusCode()).as("the fallback works").isEqualTo(200);
        }
    }

    private static McpSyncClient client(ServerHarness server, HttpRequest.Builder requests) {
        return McpClient.sync(HttpClientStreamableHttpTransport.builder(server.url("")).endpoint(McpHttpDoor.PATH)
                .requestBuilder(requests).build()).requestTimeout(Duration.ofSeconds(30)).build();
    }

    private static HttpResponse<String> post(String url, String body, Map<String, String> headers) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream").POST(HttpRequest.BodyPublishers.ofString(body));
        headers.forEach(request::header);
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A POST with a {@code Host} of our choosing (Java's HTTP client sets its own), answered as raw text. */
    private static String rawPost(int port, String host, String body) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            OutputStream out = socket.getOutputStream();
            out.write(("POST /mcp HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\n"
                    + "Accept: application/json, text/event-stream\r\nContent-Length: " + bytes.length + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(bytes);
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static void assertError(HttpResponse<String> response, String code, String message) throws IOException {
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(type -> assertThat(type).startsWith("application/json"));
        JsonNode error = Json.parse(response.body()).path("error");
        assertThat(error.path("code").asText()).isEqualTo(code);
        assertThat(error.path("message").asText()).isEqualTo(message);
    }
}
