package dev.skillforge.server.mcp;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.LoggerFactory;

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
        try (ServerHarness server = ServerHarness.builder(data, new SimScript(SimReply.of("Hello with the token.")))
                .security(SecuritySettings.defaults().withApiToken(TOKEN)).start()) {
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

    /**
     * What the SDK could not read it answered with its exceptions' texts (class names, a quote of the whole body, the
     * chain of causes); each is now a JSON-RPC error, status 400, that says what was wrong, with the request's id when
     * it had a valid one.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            cut short         | {"jsonrpc":"2.0","id":1,"method":                                           | -32700 | null | Parse error: it ends too early (a string, array or object is not closed)
            not JSON          | {"jsonrpc":"2.0","id":1,"method":ping}                                       | -32700 | null | Parse error: unknown word 'ping' (text must be in double quotes)
            two messages      | {"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"} | -32700 | null | Parse error: more follows the message (send one message)
            a batch           | [{"jsonrpc":"2.0","id":1,"method":"ping"}]                                   | -32600 | null | Invalid Request: a batch (a JSON array) of messages: MCP takes one message at a time
            not an object     | "ping"                                                                       | -32600 | null | Invalid Request: a message is a JSON object, not a string
            JSON-RPC 1.0      | {"jsonrpc":"1.0","id":1,"method":"ping"}                                     | -32600 | 1    | Invalid Request: 'jsonrpc' must be "2.0"
            a null id         | {"jsonrpc":"2.0","id":null,"method":"ping"}                                  | -32600 | null | Invalid Request: 'id' must be a string of at most 200 characters or an integer, not null
            a fractional id   | {"jsonrpc":"2.0","id":1.5,"method":"ping"}                                   | -32600 | null | Invalid Request: 'id' must be a string of at most 200 characters or an integer, not a number
            a number method   | {"jsonrpc":"2.0","id":"a","method":7}                                        | -32600 | a    | Invalid Request: 'method' must be a string, not a number
            string params     | {"jsonrpc":"2.0","id":1,"method":"tools/list","params":"all"}                | -32602 | 1    | Invalid params: 'params' must be an object, not a string
            a string client   | {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":"me"}} | -32602 | 1 | `Invalid params: initialize needs {"protocolVersion": "…", "capabilities": {…}, "clientInfo": {"name": "…", "version": "…"}}`
            no params         | {"jsonrpc":"2.0","id":1,"method":"initialize"}                              | -32602 | 1    | `Invalid params: initialize needs {"protocolVersion": "…", "capabilities": {…}, "clientInfo": {"name": "…", "version": "…"}}`
            params first     | {"params":{"capabilities":7},"jsonrpc":"2.0","id":1,"method":"initialize"}  | -32602 | 1    | `Invalid params: initialize needs {"protocolVersion": "…", "capabilities": {…}, "clientInfo": {"name": "…", "version": "…"}}`
            nothing to do     | {"jsonrpc":"2.0","id":1}                                                     | -32600 | 1    | Invalid Request: a message has a 'method' (a request or a notification) or a 'result' or an 'error' (a response)
            both answers      | {"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}        | -32600 | 1    | Invalid Request: a response has a 'result' or an 'error', not both
            a bad error       | {"jsonrpc":"2.0","id":1,"error":{"code":"x"}}                                | -32600 | 1    | Invalid Request: 'error' must be an object with an integer 'code' and a string 'message'
            """)
    void aMessageTheServerCannotTakeIsAJsonRpcErrorThatSaysWhyAndNothingOfTheServer(String why, String body, int code, String id,
                                                                                    String message, @TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript())) {
            HttpResponse<String> answer = post(server.url("/mcp"), body, Map.of());

            assertThat(answer.statusCode()).as(why).isEqualTo(400);
            assertThat(answer.headers().firstValue("Content-Type")).hasValueSatisfying(type -> assertThat(type).startsWith("application/json"));
            JsonNode error = Json.parse(answer.body());
            assertThat(error.path("jsonrpc").asText()).isEqualTo("2.0");
            assertThat(error.path("id").asText()).as(why).isEqualTo(id);
            assertThat(error.path("error").path("code").asInt()).as(why).isEqualTo(code);
            assertThat(error.path("error").path("message").asText()).as(why).startsWith(message);
            assertThat(answer.body()).as(why).doesNotContain("Exception").doesNotContain("io.modelcontextprotocol").doesNotContain("Caused by")
                    .doesNotContain("Source").doesNotContain("java.");
        }
    }

    @Test
    void anIdLongerThan200CharactersIsRefusedWithoutBeingEchoed(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript())) {
            HttpResponse<String> answer = post(server.url("/mcp"), "{\"jsonrpc\":\"2.0\",\"id\":\"" + "i".repeat(5000) + "\",\"method\":\"ping\"}", Map.of());

            assertThat(answer.statusCode()).isEqualTo(400);
            assertThat(Json.parse(answer.body()).path("id").isNull()).isTrue();
            assertThat(answer.body()).doesNotContain("iii").hasSizeLessThan(300);
        }
    }

    /**
     * An 8 MB client name was kept by its session for half an hour and logged whole: a session keeps, and the log
     * shows, at most 200 characters of each of its client's name, title and version, and nothing else it describes.
     */
    @Test
    void aSessionKeepsAndLogsOnlyABoundedDescriptionOfItsClient(@TempDir Path data) throws Exception {
        ListAppender<ILoggingEvent> connected = new ListAppender<>();
        connected.start();
        Logger log = (Logger) LoggerFactory.getLogger(SkillForgeMcp.class);
        log.addAppender(connected);
        try (ServerHarness server = new ServerHarness(data, new SimScript())) {
            String other = "x".repeat(1_000_000);
            HttpResponse<String> answer = post(server.url("/mcp"), "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                    + "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"experimental\":{\"x\":\"" + other + "\"}},\"clientInfo\":"
                    + "{\"name\":\"" + "n".repeat(8_000_000) + "\",\"version\":\"" + "v".repeat(1_000_000) + "\",\"description\":\"" + other
                    + "\"}}}", Map.of());

            assertThat(answer.statusCode()).isEqualTo(200);
            assertThat(connected.list).singleElement().satisfies(line -> assertThat(line.getFormattedMessage())
                    .isEqualTo("MCP client " + "n".repeat(200) + "… " + "v".repeat(200) + "… connected (protocol 2025-11-25)"));
        } finally {
            log.detachAppender(connected);
        }
    }

    @Test
    void atMostAThousandSessionsAreOpenAtOnceAndAnEndedOneMakesRoom(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript())) {
            String last = null;
            for (int i = 0; i < McpSessions.MAX_SESSIONS; i++) {
                HttpResponse<String> opened = post(server.url("/mcp"), INITIALIZE, Map.of());
                assertThat(opened.statusCode()).as("session %d", i).isEqualTo(200);
                last = opened.headers().firstValue("Mcp-Session-Id").orElseThrow();
            }

            HttpResponse<String> refused = post(server.url("/mcp"), INITIALIZE, Map.of());
            assertThat(refused.statusCode()).isEqualTo(503);
            JsonNode error = Json.parse(refused.body());
            assertThat(error.path("id").asInt()).isEqualTo(1);
            assertThat(error.path("error").path("code").asInt()).isEqualTo(-32000);
            assertThat(error.path("error").path("message").asText()).startsWith("The server holds the most MCP sessions it keeps (1,000)");

            HttpResponse<String> ended = HTTP.send(HttpRequest.newBuilder(URI.create(server.url("/mcp"))).header("Mcp-Session-Id", last)
                    .DELETE().build(), HttpResponse.BodyHandlers.ofString());
            assertThat(ended.statusCode()).isEqualTo(200);
            assertThat(post(server.url("/mcp"), INITIALIZE, Map.of()).statusCode()).isEqualTo(200);
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
