package dev.skillforge.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.testkit.BinaryHttp;
import dev.skillforge.testkit.SseClient;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.testkit.SimScript;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import static org.assertj.core.api.Assertions.assertThat;

/** The skills API the page uses: skills, their files, their versions, zips; hostile names, paths and zips touch nothing. */
class SkillRoutesTest {

    private static final String SKILL = "---\nname: cold-brew\ndescription: Make cold brew.\n---\n# Cold brew\n";

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void listReadDownloadAndDeleteASkill(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript())) {
            server.skills.save("cold-brew", SKILL);

            SseClient.Answer list = SseClient.get(server.url("/api/skills"));
            assertThat(list.json().path("skills").get(0).path("name").asText()).isEqualTo("cold-brew");
            assertThat(list.json().path("skills").get(0).path("description").asText()).isEqualTo("Make cold brew.");
            assertThat(list.json().path("skills").get(0).path("library").asText()).isEqualTo("own");
            JsonNode skill = SseClient.get(server.url("/api/skills/cold-brew")).json();
            assertThat(skill.path("content").asText()).isEqualTo(SKILL);
            assertThat(skill.path("files").get(0).path("path").asText()).isEqualTo("SKILL.md");
            assertThat(skill.path("files").get(0).path("size").asLong()).isEqualTo(SKILL.length());
            assertThat(skill.path("files").get(0).path("sha256").asText()).hasSize(64);
            SseClient.Answer download = SseClient.get(server.url("/api/skills/cold-brew/SKILL.md"));
            assertThat(download.contentType()).startsWith("text/markdown");
            assertThat(download.body()).isEqualTo(SKILL);

            assertThat(SseClient.send("DELETE", server.url("/api/skills/cold-brew"), null).status()).isEqualTo(204);
            assertThat(SseClient.get(server.url("/api/skills/cold-brew")).status()).isEqualTo(404);
            assertThat(SseClient.send("DELETE", server.url("/api/skills/cold-brew"), null).status()).isEqualTo(404);
            JsonNode versions = SseClient.get(server.url("/api/skills/cold-brew/versions")).json();
            assertThat(versions.path("deleted").asBoolean()).as("a deleted skill still answers its versions").isTrue();
            assertThat(versions.path("versions")).hasSize(2);
        }
    }

    @Test
    void filesAreWrittenReadAsDownloadsAndRemovedEachMakingAVersionAndOldVersionsRestore(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript())) {
            server.skills.save("cold-brew", SKILL);
            String file = server.url("/api/skills/cold-brew/files/scripts/ratio.py");

            BinaryHttp.Answer put = BinaryHttp.send("PUT", file, "application/octet-stream", bytes("print(1)\n"));
            assertThat(put.status()).as(put.text()).isEqualTo(200);
            assertThat(put.text()).contains("\"version\":2", "\"outcome\":\"updated\"");
            BinaryHttp.Answer page = BinaryHttp.send("PUT", server.url("/api/skills/cold-brew/files/assets/page.html"),
                    "application/octet-stream", bytes("<script>alert(1)</script>"));
            assertThat(page.status()).isEqualTo(200);

            BinaryHttp.Answer read = BinaryHttp.get(file);
            assertThat(read.text()).isEqualTo("print(1)\n");
            assertThat(read.contentType()).isEqualTo("text/plain;charset=utf-8");
            assertThat(read.disposition()).startsWith("attachment;").contains("ratio.py");
            BinaryHttp.Answer html = BinaryHttp.get(server.url("/api/skills/cold-brew/files/assets/page.html"));
            assertThat(html.contentType()).as("never rendered as a page").startsWith("text/plain");
            assertThat(html.disposition()).startsWith("attachment;");

            assertThat(BinaryHttp.send("DELETE", file, null, null).status()).isEqualTo(200);
            assertThat(BinaryHttp.get(file).status()).isEqualTo(404);
            assertThat(BinaryHttp.get(server.url("/api/skills/cold-brew/versions/2/files/scripts/ratio.py")).text()).isEqualTo("print(1)\n");

            JsonNode versions = SseClient.get(server.url("/api/skills/cold-brew/versions")).json().path("versions");
            assertThat(versions).extracting(v -> v.path("version").asInt()).containsExactly(4, 3, 2, 1);
            assertThat(versions.get(0).path("source").asText()).isEqualTo("api");
            assertThat(versions.get(1).path("files")).extracting(f -> f.path("path").asText())
                    .containsExactly("SKILL.md", "assets/page.html", "scripts/ratio.py");

            JsonNode diff = SseClient.get(server.url("/api/skills/cold-brew/diff?from=1&to=3")).json();
            assertThat(diff.path("files")).extracting(f -> f.path("path").asText() + " " + f.path("change").asText())
                    .containsExactly("assets/page.html added", "scripts/ratio.py added");
            assertThat(diff.path("files").get(1).path("diff").asText()).contains("+++ b/scripts/ratio.py", "+print(1)");

            SseClient.Answer restored = SseClient.send("POST", server.url("/api/skills/cold-brew/versions/2/restore"), "{}");
            assertThat(restored.status()).isEqualTo(200);
            assertThat(restored.json().path("version").asInt()).isEqualTo(5);
            assertThat(restored.json().path("restoredFrom").asInt()).isEqualTo(2);
            assertThat(BinaryHttp.get(file).text()).isEqualTo("print(1)\n");
        }
    }

    @Test
    void aRefusedWriteListsEveryProblemAndChangesNothing(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript())) {
            server.skills.save("cold-brew", SKILL);

            SseClient.Answer refused = SseClient.send("PUT", server.url("/api/skills/cold-brew"),
                    "{\"content\":\"---\\nname: tea\\nauthor: me\\n---\\n\"}");
            assertThat(refused.status()).isEqualTo(400);
            assertThat(refused.json().path("error").path("code").asText()).isEqualTo("invalid_skill");
            assertThat(refused.json().path("error").path("problems")).hasSize(3);
            BinaryHttp.Answer outside = BinaryHttp.send("PUT", server.url("/api/skills/cold-brew/files/README.md"), "application/octet-stream",
                    bytes("hi"));
            assertThat(outside.status()).isEqualTo(400);
            assertThat(outside.text()).contains("invalid_path", "is not allowed where it is");
            BinaryHttp.Answer asJson = BinaryHttp.send("PUT", server.url("/api/skills/cold-brew/files/scripts/a.py"), "application/json",
                    bytes("{}"));
            assertThat(asJson.status()).isEqualTo(415);
            assertThat(SseClient.get(server.url("/api/skills/cold-brew/versions")).json().path("versions")).hasSize(1);
        }
    }

    @Test
    void zipsImportOneOrSeveralSkillsAndHostileOnesAreRefusedWritingNothing(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript())) {
            byte[] two = zip("tea/SKILL.md", "---\nname: tea\ndescription: Brew tea.\n---\n", "coffee/SKILL.md",
                    "---\nname: coffee\ndescription: Brew coffee.\n---\n", "coffee/scripts/grind.sh", "echo grind\n");
            BinaryHttp.Answer imported = BinaryHttp.send("POST", server.url("/api/skills/import"), "application/zip", two);
            assertThat(imported.status()).as(imported.text()).isEqualTo(201);
            assertThat(imported.text()).contains("\"name\":\"tea\"", "\"name\":\"coffee\"");
            assertThat(server.skills.list()).hasSize(2);

            String[][] hostile = {
                    {"../evil/SKILL.md", "---\nname: evil\ndescription: x\n---\n"},
                    {"tea/SKILL.md", "not a skill"},
                    {"tea/run.sh", "rm -rf /"},
            };
            for (String[] entry : hostile) {
                BinaryHttp.Answer refused = BinaryHttp.send("POST", server.url("/api/skills/import"), "application/zip", zip(entry[0], entry[1]));
                assertThat(refused.status()).as(entry[0]).isEqualTo(400);
                assertThat(refused.text()).as(entry[0]).containsAnyOf("invalid_zip", "invalid_skill");
            }
            BinaryHttp.Answer notZip = BinaryHttp.send("POST", server.url("/api/skills/import"), "application/zip", bytes("hello"));
            assertThat(notZip.text()).contains("not a zip file");
            assertThat(BinaryHttp.send("POST", server.url("/api/skills/import"), "application/json", bytes("{}")).status()).isEqualTo(415);
            assertThat(SseClient.get(server.url("/api/skills/tea/versions")).json().path("versions")).as("nothing written").hasSize(1);

            BinaryHttp.Answer all = BinaryHttp.get(server.url("/api/skills.zip"));
            assertThat(all.contentType()).isEqualTo("application/zip");
            assertThat(BinaryHttp.get(server.url("/api/skills/coffee/versions/1.zip")).status()).isEqualTo(200);
            assertThat(BinaryHttp.get(server.url("/api/skills/coffee/versions/9.zip")).status()).isEqualTo(404);
        }
    }

    @Test
    void hostileNamesAndPathsAreUnknownOrRefusedAndTouchNothing(@TempDir Path data) throws Exception {
        Path outside = Files.writeString(data.resolve("secret.txt"), "keep");
        try (ServerHarness server = new ServerHarness(data, new SimScript())) {
            server.skills.save("cold-brew", SKILL);
            for (String name : new String[]{"..", "..%2Fsecret.txt", "%2E%2E", "UPPER", "x".repeat(65)}) {
                assertThat(SseClient.get(server.url("/api/skills/" + name)).status()).as(name).isIn(404, 400);
                assertThat(SseClient.send("DELETE", server.url("/api/skills/" + name), null).status()).as(name).isIn(404, 400);
            }
            for (String path : new String[]{"..%2F..%2Fsecret.txt", "scripts/..%2F..%2F..%2Fsecret.txt", "%2Fetc%2Fpasswd",
                    "scripts%5C..%5Cx"}) {
                BinaryHttp.Answer put = BinaryHttp.send("PUT", server.url("/api/skills/cold-brew/files/" + path), "application/octet-stream",
                        bytes("x"));
                assertThat(put.status()).as(path).isIn(400, 404);
                assertThat(BinaryHttp.get(server.url("/api/skills/cold-brew/files/" + path)).text()).as(path).doesNotContain("keep");
            }
            // Jetty refuses a NUL in a path with 400 before any route runs, and closes the connection.
            assertThat(SseClient.get(server.url("/api/skills/a%00b")).status()).isEqualTo(400);
            assertThat(Files.readString(outside)).isEqualTo("keep");
            assertThat(SseClient.get(server.url("/api/skills/cold-brew/versions")).json().path("versions")).hasSize(1);
        }
    }

    private static byte[] zip(String... namesAndTexts) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(out, StandardCharsets.UTF_8)) {
            for (int i = 0; i < namesAndTexts.length; i += 2) {
                zip.putNextEntry(new ZipEntry(namesAndTexts[i]));
                zip.write(bytes(namesAndTexts[i + 1]));
            }
        }
        return out.toByteArray();
    }
}
