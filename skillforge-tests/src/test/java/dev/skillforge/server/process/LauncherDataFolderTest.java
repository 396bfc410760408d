package dev.skillforge.server.process;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.server.json.Json;
import dev.skillforge.testkit.ServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The default data folder is {@code data} beside the installation, whichever folder starts the launcher: a skill saved
 * through {@code serve} started in one folder is there for {@code mcp} started in another, as an MCP client starts it
 * in the user's project, and neither folder gets a {@code data} of its own. Both say at start which folder it is.
 */
class LauncherDataFolderTest {

    /** No start-up cache: a training run in the background would still write into the installation when it is deleted. */
    private static final Map<String, String> NO_CACHE = Map.of("FORGE_START_CACHE", "0");
    private static final String SKILL = """
            ---
            name: folder-check
            description: Proves that serve and mcp share one data folder.
            ---
            Saved through serve, listed through mcp.
            """;

    @TempDir
    Path installation;
    @TempDir
    Path project;
    @TempDir
    Path elsewhere;

    @Test
    void serveAndMcpStartedInDifferentFoldersFindTheSameDataBesideTheInstallation() throws Exception {
        Path launcher = ServerProcess.launcherIn(installation);
        Path data = installation.toRealPath().resolve("data");

        try (ServerProcess serve = ServerProcess.startByLauncher("data-folder-serve", launcher, project, NO_CACHE)) {
            HttpRequest put = HttpRequest.newBuilder(URI.create(serve.url("/api/skills/folder-check")))
                    .header("Content-Type", "application/json")
                    .PUT(HttpRequest.BodyPublishers.ofString(Json.write(Json.object().put("content", SKILL)))).build();
            HttpResponse<String> saved = HttpClient.newHttpClient().send(put, HttpResponse.BodyHandlers.ofString());
            assertThat(saved.statusCode()).as(saved.body()).isEqualTo(201);
            serve.stop();
            assertThat(serve.output()).contains("data: " + data + " (beside the installation; FORGE_DATA_DIR to choose another)");
        }

        Path stderr = elsewhere.resolve("mcp-stderr.log");
        Process mcp = ServerProcess.launcherCommand(launcher, elsewhere, NO_CACHE, "mcp").redirectError(stderr.toFile()).start();
        try (OutputStream in = mcp.getOutputStream();
             BufferedReader out = new BufferedReader(new InputStreamReader(mcp.getInputStream(), StandardCharsets.UTF_8))) {
            send(in, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
                    + "\"capabilities\":{},\"clientInfo\":{\"name\":\"data-folder\",\"version\":\"1\"}}}");
            readUntil(out, 1, stderr);
            send(in, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
            send(in, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"skill_list\",\"arguments\":{}}}");

            JsonNode skills = readUntil(out, 2, stderr).path("result").path("structuredContent").path("skills");

            assertThat(skills.findValuesAsText("name")).as("mcp's skills; its stderr: %s", Files.readString(stderr))
                    .containsExactly("folder-check");
        } finally {
            assertThat(mcp.waitFor(30, TimeUnit.SECONDS)).as("mcp ends when its stdin closes").isTrue();
        }
        assertThat(Files.readString(stderr)).contains("SkillForge MCP on stdio")
                .contains("data: " + data + " (beside the installation; FORGE_DATA_DIR to choose another)");
        assertThat(data.resolve("skillforge.db")).as("the one database, beside the installation").isRegularFile();
        assertThat(project.resolve("data")).doesNotExist();
        assertThat(elsewhere.resolve("data")).doesNotExist();
    }

    private static void send(OutputStream in, String message) throws IOException {
        in.write((message + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    /** The stdout lines up to the response to {@code id}. */
    private static JsonNode readUntil(BufferedReader out, int id, Path stderr) throws IOException {
        while (true) {
            String line = out.readLine();
            assertThat(line).as("stdout ended before the response to %d; stderr: %s", id, Files.readString(stderr)).isNotNull();
            JsonNode message = Json.parse(line);
            if (message.path("id").asInt(-1) == id) {
                return message;
            }
        }
    }
}
