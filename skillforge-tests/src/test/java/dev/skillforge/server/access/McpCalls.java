package dev.skillforge.server.access;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.server.json.Json;
import dev.skillforge.testkit.ServerHarness;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/** MCP as a client sends it: the SDK's client for {@code chat}, and a bare {@code initialize} to see what the door answers. */
final class McpCalls {

    private static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
            + "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"people-test\",\"version\":\"1\"}}}";

    private McpCalls() {
    }

    /**
     * One {@code chat} call through the MCP SDK's client, with {@code authorization} on every request.
     *
     * @return {@code {"result": CallToolResult}}, or {@code {"error": message}} when the call itself failed
     */
    static JsonNode chat(ServerHarness server, String authorization, String prompt, String continuationId) {
        HttpRequest.Builder requests = HttpRequest.newBuilder().header("Authorization", authorization);
        McpSyncClient client = McpClient.sync(HttpClientStreamableHttpTransport.builder(server.url("")).endpoint("/mcp")
                .requestBuilder(requests).build()).requestTimeout(Duration.ofSeconds(60)).initializationTimeout(Duration.ofSeconds(30)).build();
        ObjectNode answer = Json.object();
        try {
            client.initialize();
            Map<String, Object> arguments = new HashMap<>(Map.of("prompt", prompt));
            if (continuationId != null) {
                arguments.put("continuation_id", continuationId);
            }
            McpSchema.CallToolResult result = client.callTool(McpSchema.CallToolRequest.builder("chat").arguments(arguments).build());
            answer.set("result", Json.MAPPER.valueToTree(result));
        } catch (RuntimeException e) {
            answer.put("error", String.valueOf(e.getMessage()));
        } finally {
            client.closeGracefully();
        }
        return answer;
    }

    /** A bare {@code initialize}, with {@code authorization} when not {@code null}. */
    static HttpResponse<String> initialize(ServerHarness server, String authorization) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.url("/mcp"))).header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream").POST(HttpRequest.BodyPublishers.ofString(INITIALIZE));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return PeopleIsolationContract.HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    static int status(ServerHarness server, String authorization) throws IOException, InterruptedException {
        return initialize(server, authorization).statusCode();
    }
}
