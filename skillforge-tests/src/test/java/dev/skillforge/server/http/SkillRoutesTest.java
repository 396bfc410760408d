package dev.skillforge.server.http;

import dev.skillforge.testkit.SseClient;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.testkit.SimScript;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The skills API the page uses: list, read, download, delete; hostile names touch no file. */
class SkillRoutesTest {

    private static final String SKILL = "---\nname: cold-brew\ndescription: Make cold brew.\n---\n# Cold brew\n";

    @Test
    void listReadDownloadAndDeleteASkill(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript())) {
            server.skills.save("cold-brew", SKILL);

            SseClient.Answer list = SseClient.get(server.url("/api/skills"));
            assertThat(list.json().path("skills").get(0).path("name").asText()).isEqualTo("cold-brew");
            assertThat(list.json().path("skills").get(0).path("description").asText()).isEqualTo("Make cold brew.");
            assertThat(SseClient.get(server.url("/api/skills/cold-brew")).json().path("content").asText()).isEqualTo(SKILL);
            SseClient.Answer download = SseClient.get(server.url("/api/skills/cold-brew/SKILL.md"));
            assertThat(download.contentType()).startsWith("text/markdown");
            assertThat(download.body()).isEqualTo(SKILL);

            assertThat(SseClient.send("DELETE", server.url("/api/skills/cold-brew"), null).status()).isEqualTo(204);
            assertThat(SseClient.get(server.url("/api/skills/cold-brew")).status()).isEqualTo(404);
            assertThat(SseClient.send("DELETE", server.url("/api/skills/cold-brew"), null).status()).isEqualTo(404);
        }
    }

    @Test
    void hostileNamesAreUnknownAndTouchNothing(@TempDir Path data) throws Exception {
        Path outside = Files.writeString(data.resolve("secret.txt"), "keep");
        try (ServerHarness server = new ServerHarness(data, new SimScript())) {
            for (String name : new String[]{"..", "..%2Fsecret.txt", "%2E%2E", "UPPER", "x".repeat(65)}) {
                assertThat(SseClient.get(server.url("/api/skills/" + name)).status()).as(name).isIn(404, 400);
                assertThat(SseClient.send("DELETE", server.url("/api/skills/" + name), null).status()).as(name).isIn(404, 400);
            }
            // Jetty refuses a NUL in a path with 400 before any route runs, and closes the connection.
            assertThat(SseClient.get(server.url("/api/skills/a%00b")).status()).isEqualTo(400);
            assertThat(Files.readString(outside)).isEqualTo("keep");
        }
    }
}
