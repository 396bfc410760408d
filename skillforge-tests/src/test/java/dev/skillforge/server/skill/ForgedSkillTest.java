package dev.skillforge.server.skill;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.testkit.BinaryHttp;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.testkit.SimScript;
import dev.skillforge.testkit.SkillsRef;
import dev.skillforge.testkit.SseClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a person forges here works elsewhere: a scripted model forges a skill of three files through the loop, its
 * exported zip passes the Agent Skills reference validator ({@code skills-ref validate}, from npm) once unzipped as
 * Claude Code's skills folder would hold it, its script runs there, and importing the zip gives back the same bytes.
 */
class ForgedSkillTest {

    static final String SKILL_MD = """
            ---
            name: cold-brew
            description: Makes cold brew coffee concentrate at home. Use when someone wants smooth, low-acid iced coffee.
            license: MIT
            metadata:
              author: SkillForge tests
            ---
            # Cold brew

            1. Work out the coffee for the water with scripts/ratio.py (grams for millilitres, 1:8).
            2. Choose the beans as references/beans.md says.
            3. Steep 16 hours in the fridge, then filter twice.
            """;
    static final String RATIO_PY = """
            import sys

            water_ml = float(sys.argv[1]) if len(sys.argv) > 1 else 1000
            print(f"{water_ml / 8:.0f} g coarse coffee for {water_ml:.0f} ml water")
            """;
    static final String BEANS_MD = "# Beans\n\nMedium or dark roast, ground coarse like sea salt.\n";

    /** The model's reply that forges the skill: three commands, in order, in one answer. */
    static SimReply forging() {
        return SimReply.of("Forging it.\n<shell>skill set cold-brew\n" + SKILL_MD + "</shell>\n",
                "<shell>skill file cold-brew scripts/ratio.py\n" + RATIO_PY + "</shell>\n",
                "<shell>skill file cold-brew references/beans.md\n" + BEANS_MD + "</shell>");
    }

    @Test
    void aSkillForgedThroughTheLoopExportsAsAValidAgentSkillAndImportsBackToTheSameBytes(@TempDir Path data, @TempDir Path home)
            throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript(forging(), SimReply.of("Forged cold-brew.")))) {
            String id = SseClient.send("POST", server.url("/api/conversations"), "{}").json().path("id").asText();
            List<SseClient.Event> events = SseClient.postForEvents(server.url("/api/conversations/" + id + "/messages"),
                    "{\"content\":\"Learn how to make cold brew, with a script for the ratio\"}");
            assertThat(events.getLast().type()).isEqualTo("done");

            JsonNode versions = SseClient.get(server.url("/api/skills/cold-brew/versions")).json().path("versions");
            assertThat(versions).hasSize(3);
            assertThat(versions.get(0).path("source").asText()).isEqualTo("model");
            assertThat(versions.get(0).path("conversationId").asText()).isEqualTo(id);
            Map<String, String> forged = Map.of("cold-brew/SKILL.md", SKILL_MD, "cold-brew/scripts/ratio.py", RATIO_PY,
                    "cold-brew/references/beans.md", BEANS_MD);

            BinaryHttp.Answer zip = BinaryHttp.get(server.url("/api/skills/cold-brew.zip"));
            assertThat(zip.status()).isEqualTo(200);
            assertThat(zip.contentType()).isEqualTo("application/zip");
            assertThat(zip.disposition()).contains("filename=\"cold-brew.zip\"");
            assertThat(entries(zip.body())).isEqualTo(forged);

            Path skills = unzip(zip.body(), Files.createDirectories(home.resolve(".claude/skills")));
            SkillsRef.Verdict verdict = SkillsRef.validate(skills.resolve("cold-brew"));
            assertThat(verdict.exitCode()).as(verdict.output()).isZero();
            assertThat(verdict.output()).contains("Valid skill");
            assertThat(run(skills.resolve("cold-brew"), "python3", "scripts/ratio.py", "800")).isEqualTo("100 g coarse coffee for 800 ml water\n");

            assertThat(SseClient.send("DELETE", server.url("/api/skills/cold-brew"), null).status()).isEqualTo(204);
            BinaryHttp.Answer imported = BinaryHttp.send("POST", server.url("/api/skills/import"), "application/zip", zip.body());
            assertThat(imported.status()).as(imported.text()).isEqualTo(201);
            assertThat(SseClient.get(server.url("/api/skills/cold-brew")).json().path("version").asInt()).isEqualTo(5);
            assertThat(entries(BinaryHttp.get(server.url("/api/skills/cold-brew.zip")).body())).as("the same bytes").isEqualTo(forged);
            assertThat(SseClient.get(server.url("/api/skills/cold-brew/versions")).json().path("versions").get(0).path("source").asText())
                    .isEqualTo("import");
        }
    }

    static Map<String, String> entries(byte[] zip) throws IOException {
        Map<String, String> files = new TreeMap<>();
        try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(zip))) {
            for (ZipEntry entry; (entry = in.getNextEntry()) != null; ) {
                files.put(entry.getName(), new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
        }
        return files;
    }

    private static Path unzip(byte[] zip, Path folder) throws IOException {
        for (Map.Entry<String, String> file : entries(zip).entrySet()) {
            Path target = folder.resolve(file.getKey()).normalize();
            assertThat(target.startsWith(folder)).as(file.getKey()).isTrue();
            Files.createDirectories(target.getParent());
            Files.writeString(target, file.getValue());
        }
        return folder;
    }

    private static String run(Path dir, String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        process.getOutputStream().close();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(output).isZero();
        return output;
    }
}
