package dev.skillforge.server.page;

import com.microsoft.playwright.Download;
import com.microsoft.playwright.JSHandle;
import com.microsoft.playwright.Locator;
import dev.skillforge.server.skill.SkillAccess;
import dev.skillforge.server.skill.SkillPath;
import dev.skillforge.server.skill.VersionSource;
import dev.skillforge.testkit.SimScript;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Base64;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/** Skills as folders on the page: a skill's files previewed and downloaded, its history with diffs and a restore, import by drop, undo. */
class SkillFoldersPageTest extends BrowserTest {

    static final String V1 = "---\nname: cold-brew\ndescription: Make cold brew coffee at home.\n---\n# Cold brew\n\nSteep 12 hours.\n";
    static final String V2 = V1.replace("Steep 12 hours.", "Steep 16 hours, then run scripts/ratio.py.");
    static final String RATIO = "import sys\n\nprint(int(sys.argv[1]) // 8, 'g coffee')\n";
    static final byte[] PNG = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13};

    private void put(String path, byte[] bytes) {
        server.skills.store().putFile(SkillAccess.ONE_PERSON, "cold-brew", SkillPath.of(path), bytes, VersionSource.model("3f1c2a9e-0000-4000-8000-000000000001"));
    }

    @Test
    void aSkillsFilesArePreviewedAsTextAndDownloadedAndItsHistoryShowsWhatChangedAndRestores() throws Exception {
        start(new SimScript());
        server.skills.save("cold-brew", V1);
        put("scripts/ratio.py", RATIO.getBytes(StandardCharsets.UTF_8));
        put("assets/label.png", PNG);
        put("assets/page.html", "<h1 id=pwned>hello</h1><script>document.title='pwned'</script>".getBytes(StandardCharsets.UTF_8));
        put("SKILL.md", V2.getBytes(StandardCharsets.UTF_8));
        open("/");
        page.locator("#open-skills").click();
        page.locator(".skill[data-skill='cold-brew'] .skill-description").click();

        assertThat(page.locator("#skill-version-line")).containsText("Version 5");
        assertThat(page.locator("#skill-files .skill-file-path")).hasText(new String[]{"SKILL.md", "assets/label.png", "assets/page.html",
                "scripts/ratio.py"});
        page.locator(".skill-file[data-path='scripts/ratio.py'] .skill-file-path").click();
        assertThat(page.locator("#skill-file-preview-name")).hasText("scripts/ratio.py");
        assertThat(page.locator("#skill-file-preview-body")).hasText(RATIO.strip());
        screenshot("aSkillsFilesArePreviewed-script");

        // A page in a skill is shown as its text, never rendered or run.
        page.locator(".skill-file[data-path='assets/page.html'] .skill-file-path").click();
        assertThat(page.locator("#skill-file-preview-body")).containsText("<script>");
        assertThat(page.locator("#pwned")).hasCount(0);
        assertThat(page).not().hasTitle("pwned");
        page.locator(".skill-file[data-path='assets/label.png'] .skill-file-path").click();
        assertThat(page.locator("#skill-file-preview-body")).containsText("A binary file of 12 B");

        Download script = page.waitForDownload(() -> page.locator(".skill-file[data-path='scripts/ratio.py'] a").click());
        assertThat(script.suggestedFilename()).isEqualTo("ratio.py");
        assertThat(Files.readString(script.path())).isEqualTo(RATIO);
        Download zip = page.waitForDownload(() -> page.locator("#skill-zip").click());
        assertThat(zip.suggestedFilename()).isEqualTo("cold-brew.zip");

        page.locator("#skill-history-toggle").click();
        Locator versions = page.locator("#skill-versions .skill-version");
        assertThat(versions).hasCount(5);
        assertThat(versions.first()).containsText("by the model in a conversation");
        assertThat(versions.last()).containsText("on this page or the API");
        versions.first().getByText("Changes").click();
        Locator diff = versions.first().locator(".skill-diff");
        assertThat(diff.locator(".skill-diff-path")).hasText("changed SKILL.md");
        assertThat(diff.locator(".diff-del")).hasText("-Steep 12 hours.");
        assertThat(diff.locator(".diff-add")).hasText("+Steep 16 hours, then run scripts/ratio.py.");
        screenshot("aSkillsHistoryShowsWhatChanged");

        // Restore the first version: a new version with its files; the others stay.
        versions.last().getByText("Restore").click();
        assertThat(versions.last().locator(".confirm")).containsText("Make version 1 current again?");
        versions.last().locator(".confirm-yes").click();
        assertThat(page.locator("#skill-version-line")).containsText("Version 6");
        assertThat(versions).hasCount(6);
        assertThat(versions.first()).containsText("restoring version 1");
        assertThat(page.locator("#skill-files .skill-file-path")).hasText(new String[]{"SKILL.md"});
        assertThat(page.locator("#skill-body")).containsText("Steep 12 hours.");
        assertThat(server.skills.get("cold-brew")).contains(V1);
        screenshot("aSkillIsRestored");
    }

    @Test
    void aZipDroppedOnThePanelIsImportedAndABadOneIsRefusedWithEachProblem() throws Exception {
        start(new SimScript());
        open("/");
        page.locator("#open-skills").click();

        drop("skills.zip", zip(Map.of("tea/SKILL.md", "---\nname: tea\ndescription: Brew green tea.\n---\n# Tea\n",
                "tea/references/temperatures.md", "# 80 °C\n", "coffee/SKILL.md", "---\nname: coffee\ndescription: Brew coffee.\n---\n")));
        assertThat(page.locator("#skills-status")).containsText("Imported");
        assertThat(page.locator("#skills-status")).containsText("tea (version 1)");
        assertThat(page.locator("#skill-list .skill .skill-name")).hasText(new String[]{"coffee", "tea"});
        screenshot("aZipDroppedOnThePanelIsImported");

        drop("broken.zip", zip(Map.of("broken/SKILL.md", "---\nname: other\nversion: 2\n---\n", "broken/run.sh", "rm -rf /\n")));
        assertThat(page.locator("#skills-status")).hasAttribute("role", "alert");
        assertThat(page.locator("#skills-status")).containsText("broken.zip was not imported");
        assertThat(page.locator("#skills-status")).containsText("run.sh");
        assertThat(server.skills.list()).hasSize(2);

        page.locator("#skills-import-file").setInputFiles(new com.microsoft.playwright.options.FilePayload("bad.zip", "application/zip",
                zip(Map.of("bad/SKILL.md", "---\nname: other\nversion: 2\n---\n"))));
        assertThat(page.locator("#skills-status .skill-problems li")).hasCount(3);
        assertThat(page.locator("#skills-status")).containsText("no description field");
        assertThat(page.locator("#skills-status")).containsText("\"version\" is not one of the Agent Skills specification's");
        screenshot("aBadZipIsRefusedWithEachProblem");
    }

    @Test
    void aDeletionIsUndoneAndADeletedSkillIsFoundAndRestoredLater() throws Exception {
        start(new SimScript());
        server.skills.save("cold-brew", V1);
        server.skills.save("sourdough", "---\nname: sourdough\ndescription: Keep a starter alive.\n---\n# Starter\n");
        open("/");
        page.locator("#open-skills").click();

        page.locator(".skill[data-skill='cold-brew'] .skill-actions .danger").click();
        page.locator(".skill[data-skill='cold-brew'] .confirm-yes").click();
        assertThat(page.locator(".skill-deleted")).containsText("Deleted cold-brew.");
        assertThat(page.locator("#skill-list .skill")).hasCount(1);
        page.getByRole(com.microsoft.playwright.options.AriaRole.BUTTON,
                new com.microsoft.playwright.Page.GetByRoleOptions().setName("Undo the deletion of cold-brew")).click();
        assertThat(page.locator("#skill-list .skill .skill-name")).hasText(new String[]{"cold-brew", "sourdough"});
        assertThat(server.skills.get("cold-brew")).contains(V1);

        page.locator(".skill[data-skill='sourdough'] .skill-actions .danger").click();
        page.locator(".skill[data-skill='sourdough'] .confirm-yes").click();
        page.locator("#close-skills").click();
        page.locator("#open-skills").click();
        assertThat(page.locator("#skills-deleted")).isVisible();
        page.locator("#skills-deleted summary").click();
        assertThat(page.locator("#skill-deleted-list .skill-name")).hasText(new String[]{"sourdough"});
        screenshot("aDeletedSkillIsFoundLater");
        page.locator("#skill-deleted-list .skill[data-skill='sourdough'] button").click();
        assertThat(page.locator("#skill-list .skill .skill-name")).hasText(new String[]{"cold-brew", "sourdough"});
        assertThat(page.locator("#skills-deleted")).isHidden();
    }

    /** Drops a file on the skills panel, as a person drags it from their file manager. */
    private void drop(String name, byte[] bytes) {
        JSHandle transfer = page.evaluateHandle("([name, data]) => { const t = new DataTransfer();"
                + " const bytes = Uint8Array.from(atob(data), c => c.charCodeAt(0));"
                + " t.items.add(new File([bytes], name, { type: 'application/zip' })); return t; }",
                java.util.List.of(name, Base64.getEncoder().encodeToString(bytes)));
        page.locator("#skills-panel").dispatchEvent("dragover", Map.of("dataTransfer", transfer));
        page.locator("#skills-panel").dispatchEvent("drop", Map.of("dataTransfer", transfer));
    }

    private static byte[] zip(Map<String, String> files) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(out, StandardCharsets.UTF_8)) {
            for (Map.Entry<String, String> file : new java.util.TreeMap<>(files).entrySet()) {
                zip.putNextEntry(new ZipEntry(file.getKey()));
                zip.write(file.getValue().getBytes(StandardCharsets.UTF_8));
            }
        }
        return out.toByteArray();
    }
}
