package dev.skillforge.server.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.server.json.Json;
import dev.skillforge.testkit.ServerProcess;
import dev.skillforge.server.provider.sim.SimProviderServer;
import dev.skillforge.server.provider.sim.SimReply;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The MCP contract over stdio: {@code Main mcp} in a child JVM started by the SDK's stdio client, as
 * a desktop client starts it. The HTTP API is a second child, {@code Main serve}, on the same data
 * folder: two processes on one SQLite file, handing conversations to each other through leases.
 */
class StdioMcpDoorTest extends McpDoorContract {

    private SimProviderServer sim;
    private Path data;
    private ServerProcess api;
    private final List<String> stderr = new CopyOnWriteArrayList<>();

    @Override
    protected void startServer() throws Exception {
        sim = SimProviderServer.startOnLoopback(responder, SimProviderServer.Options.DEFAULT.recordingRequests());
        data = Files.createTempDirectory("mcp-stdio");
        Map<String, String> env = McpStdioProcess.environment(sim, data);
        env.remove("FORGE_DATA_DIR"); // ServerProcess sets it
        api = ServerProcess.start("mcp-stdio-api", data, env);
    }

    @Override
    protected void stopServer() throws Exception {
        try {
            api.stop();
        } finally {
            sim.close();
        }
    }

    @Override
    protected McpClientTransport clientTransport() {
        ServerParameters child = ServerParameters.builder(McpStdioProcess.java()).args(McpStdioProcess.arguments())
                .env(McpStdioProcess.environment(sim, data)).build();
        StdioClientTransport transport = new StdioClientTransport(child, McpJsonDefaults.getMapper()) {
            @Override
            protected ProcessBuilder getProcessBuilder() {
                return McpStdioProcess.withoutInheritedSettings(super.getProcessBuilder());
            }
        };
        transport.setStdErrorHandler(stderr::add);
        return transport;
    }

    @Override
    protected SimProviderServer sim() {
        return sim;
    }

    @Override
    protected String apiUrl(String path) {
        return api.url(path);
    }

    @Override
    protected String defaultProvider() {
        return "openai";
    }

    @Override
    protected String configuredProviders() {
        return "openai";
    }

    /**
     * Every log line went to stderr: the SDK's client stops reading at the first stdout line that is not
     * a JSON-RPC message, so every other test of this class passing shows stdout carried nothing else.
     */
    @Test
    void everyLogLineGoesToStderr() throws Exception {
        script(SimReply.of("Logged."));
        assertThat(structured(chat(Map.of("prompt", "Log something.")))).containsEntry("answer", "Logged.");
        await(() -> stderr.stream().anyMatch(line -> line.contains("[Cache Debug]")), "the model call's log line on stderr");
        assertThat(stderr).anyMatch(line -> line.contains("SkillForge MCP on stdio with provider openai"));
    }

    /**
     * Raw stdio, without the SDK: what a client of the 2026-07-28 revision gets when it probes with
     * {@code server/discover} (Method not found, so it falls back to {@code initialize}); every stdout
     * line is a JSON-RPC message; and the process ends, with exit code 0, when the client closes stdin.
     */
    @Test
    void aDiscoverProbeIsMethodNotFoundStdoutCarriesOnlyMessagesAndClosingStdinEndsTheProcess() throws Exception {
        script(SimReply.of("Checked. <shell>skill list</shell>"), SimReply.of("Done."));
        Path log = Files.createDirectories(Path.of("target", "process-logs")).resolve("mcp-stdio-raw.log");
        ProcessBuilder builder = McpStdioProcess.withoutInheritedSettings(new ProcessBuilder(command()))
                .redirectError(log.toFile());
        builder.environment().putAll(McpStdioProcess.environment(sim, Files.createTempDirectory("mcp-stdio-raw")));
        Process process = builder.start();
        try (OutputStream in = process.getOutputStream();
             BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            List<JsonNode> received = new ArrayList<>();
            send(in, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"server/discover\",\"params\":{\"_meta\":"
                    + "{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}");
            JsonNode probe = readUntil(out, 0, received);
            assertThat(probe.path("error").path("code").asInt()).isEqualTo(McpSchema.ErrorCodes.METHOD_NOT_FOUND);

            send(in, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
                    + "\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}");
            assertThat(readUntil(out, 1, received).path("result").path("protocolVersion").asText()).isEqualTo("2025-11-25");
            send(in, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
            send(in, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"chat\",\"arguments\":"
                    + "{\"prompt\":\"Check my skills.\"},\"_meta\":{\"progressToken\":7}}}");
            JsonNode answer = readUntil(out, 2, received);
            assertThat(answer.path("result").path("structuredContent").path("answer").asText()).isEqualTo("Done.");
            assertThat(received).as("progress notifications came on stdout too")
                    .anyMatch(message -> message.path("method").asText().equals("notifications/progress"));
        }
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("the process ends when stdin closes").isTrue();
        assertThat(process.exitValue()).isZero();
        assertThat(Files.readString(log)).contains("[Cache Debug]").contains("MCP client closed stdin: stopping");
    }

    /**
     * A line the server cannot take ended the session without a word; each is now answered with a JSON-RPC error that
     * says what was wrong (id {@code null} when it had no valid one) and the session goes on, a line over the limit
     * included (read to its end, not kept).
     */
    @Test
    void aLineItCannotTakeIsAnsweredWithAJsonRpcErrorAndTheSessionGoesOn() throws Exception {
        Path log = Files.createDirectories(Path.of("target", "process-logs")).resolve("mcp-stdio-bad-lines.log");
        ProcessBuilder builder = McpStdioProcess.withoutInheritedSettings(new ProcessBuilder(command())).redirectError(log.toFile());
        builder.environment().putAll(McpStdioProcess.environment(sim, Files.createTempDirectory("mcp-stdio-bad-lines")));
        Process process = builder.start();
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        try {
            try (OutputStream in = process.getOutputStream()) {
                // A session that ended without a word leaves its client waiting for an answer forever: bounded here.
                assertTimeoutPreemptively(Duration.ofSeconds(60), () -> answersEveryBadLineAndGoesOn(in, out));
            }
            assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("the process ends when stdin closes").isTrue();
            assertThat(process.exitValue()).isZero();
        } finally {
            process.destroyForcibly();
        }
    }

    private static void answersEveryBadLineAndGoesOn(OutputStream in, BufferedReader out) throws IOException {
        send(in, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":");
        assertError(out.readLine(), -32700, null, "Parse error: it ends too early (a string, array or object is not closed)");
        send(in, "[{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}]");
        assertError(out.readLine(), -32600, null, "Invalid Request: a batch (a JSON array) of messages: MCP takes one message at a time");
        send(in, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"initialize\",\"params\":{\"capabilities\":7}}");
        assertError(out.readLine(), -32602, 3, "Invalid params: initialize needs");
        send(in, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\",\"params\":{\"pad\":\"" + "x".repeat(McpStdio.MAX_MESSAGE_BYTES) + "\"}}");
        assertError(out.readLine(), -32600, null, "Invalid Request: the message is longer than " + String.format("%,d", McpStdio.MAX_MESSAGE_BYTES)
                + " bytes; it was skipped");

        send(in, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
                + "\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}");
        assertThat(Json.parse(out.readLine()).path("result").path("protocolVersion").asText()).isEqualTo("2025-11-25");
        send(in, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
        send(in, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/list\"}");
        assertThat(Json.parse(out.readLine()).path("result").path("tools").get(0).path("name").asText()).isEqualTo("chat");
    }

    private static void assertError(String line, int code, Integer id, String message) throws IOException {
        assertThat(line).as("an answer, not the end of the session").isNotNull().doesNotContain("Exception").doesNotContain("io.modelcontextprotocol")
                .doesNotContain("Caused by").doesNotContain("xxxx");
        JsonNode error = Json.parse(line);
        assertThat(error.path("jsonrpc").asText()).isEqualTo("2.0");
        assertThat(error.path("id").isNull() ? null : error.path("id").asInt()).isEqualTo(id);
        assertThat(error.path("error").path("code").asInt()).isEqualTo(code);
        assertThat(error.path("error").path("message").asText()).startsWith(message);
    }

    private static List<String> command() {
        List<String> command = new ArrayList<>();
        command.add(McpStdioProcess.java());
        command.addAll(McpStdioProcess.arguments());
        return command;
    }

    private static void send(OutputStream in, String message) throws IOException {
        in.write((message + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    /** Reads stdout lines, each of which must be a JSON-RPC message, until the response to {@code id}. */
    private static JsonNode readUntil(BufferedReader out, int id, List<JsonNode> received) throws IOException {
        while (true) {
            String line = out.readLine();
            assertThat(line).as("stdout ended before the response to %d", id).isNotNull();
            JsonNode message = Json.parse(line);
            assertThat(message.path("jsonrpc").asText()).as("a JSON-RPC message on stdout: %s", line).isEqualTo("2.0");
            received.add(message);
            if (message.path("id").isInt() && message.path("id").asInt() == id) {
                return message;
            }
        }
    }
}
