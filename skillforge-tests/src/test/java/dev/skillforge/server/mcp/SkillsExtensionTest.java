package dev.skillforge.server.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.skill.Sha256;
import dev.skillforge.testkit.BinaryHttp;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.testkit.SimScript;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The MCP Skills extension as a client that speaks it sees it, in raw JSON-RPC (the SDK's client has no method for it):
 * the capability, {@code skills/list} with each skill's front matter and every file's digest and size, and
 * {@code skills/get} by the URI of a SKILL.md; digests match the bytes {@code resources/read} and the API give.
 */
class SkillsExtensionTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final String SKILL_MD = "---\nname: tea\ndescription: Brew tea.\nlicense: MIT\nmetadata:\n  author: ann\n---\n# Tea\n";

    @Test
    void skillsListAndGetGiveEachSkillsFrontMatterAndEveryFilesDigest(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript())) {
            server.skills.save("tea", SKILL_MD);
            byte[] script = "echo brew\n".getBytes(StandardCharsets.UTF_8);
            BinaryHttp.send("PUT", server.url("/api/skills/tea/files/scripts/brew.sh"), "application/octet-stream", script);

            HttpResponse<String> init = post(server, null, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                    + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}");
            assertThat(result(init).path("capabilities").path("extensions").has("io.modelcontextprotocol/skills")).isTrue();
            String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
            post(server, session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");

            JsonNode list = result(post(server, session, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"skills/list\",\"params\":{}}"));
            assertThat(list.path("resultType").asText()).isEqualTo("complete");
            assertThat(list.path("ttlMs").asLong()).isPositive();
            JsonNode tea = list.path("skills").get(0);
            assertThat(tea.path("uri").asText()).isEqualTo("skill://tea/SKILL.md");
            assertThat(tea.path("frontmatter")).isEqualTo(Json.parse("{\"name\":\"tea\",\"description\":\"Brew tea.\",\"license\":\"MIT\","
                    + "\"metadata\":{\"author\":\"ann\"}}"));
            assertThat(tea.path("resources")).hasSize(2);
            assertThat(tea.path("resources").get(1).path("uri").asText()).isEqualTo("skill://tea/scripts/brew.sh");
            assertThat(tea.path("resources").get(1).path("digest").asText()).isEqualTo("sha256:" + Sha256.hex(script));
            assertThat(tea.path("resources").get(1).path("size").asLong()).isEqualTo(script.length);
            assertThat(tea.path("resources").get(0).path("digest").asText())
                    .isEqualTo("sha256:" + Sha256.hex(SKILL_MD.getBytes(StandardCharsets.UTF_8)));

            JsonNode get = result(post(server, session, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"skills/get\",\"params\":"
                    + "{\"uri\":\"skill://tea/SKILL.md\"}}"));
            assertThat(get.path("skill")).isEqualTo(tea);

            JsonNode unknown = Json.parse(body(post(server, session, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"skills/get\",\"params\":"
                    + "{\"uri\":\"skill://coffee/SKILL.md\"}}")));
            assertThat(unknown.path("error").path("code").asInt()).isEqualTo(-32602);
        }
    }

    private static HttpResponse<String> post(ServerHarness server, String session, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.url("/mcp"))).header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream").header("MCP-Protocol-Version", "2025-11-25")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (session != null) {
            request.header("Mcp-Session-Id", session);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode result(HttpResponse<String> response) throws Exception {
        JsonNode message = Json.parse(body(response));
        assertThat(message.has("result")).as(response.body()).isTrue();
        return message.path("result");
    }

    /** The JSON-RPC message of an answer, whether it came as JSON or as one Server-Sent Event. */
    private static String body(HttpResponse<String> response) {
        String body = response.body();
        if (!body.startsWith("{")) {
            body = body.lines().filter(line -> line.startsWith("data:")).map(line -> line.substring(5).strip()).findFirst().orElse(body);
        }
        return body;
    }
}
