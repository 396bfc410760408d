package dev.skillforge.server.page;

import com.microsoft.playwright.Download;
import com.microsoft.playwright.Locator;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.testkit.SimScript;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/** The skills panel: the stored skills, one rendered, one downloaded as its SKILL.md, one deleted. */
class SkillsPanelTest extends BrowserTest {

    static final String COLD_BREW = """
            ---
            name: cold-brew
            description: Make cold brew coffee at home.
            ---
            # Cold brew

            1. Grind **coarse**.
            2. Steep 12 hours:

            ```python
            hours = 12
            print(f"steep {hours} hours")
            ```
            """;
    static final String SOURDOUGH = "---\nname: sourdough-starter\ndescription: Keep a sourdough starter alive.\n---\n# Starter\n\nFeed it daily.\n";

    @Test
    void skillsPanelListsViewsDownloadsAndDeletes() throws Exception {
        start(new SimScript(SimReply.of("Saving it.\n\n<shell>skill set tea\n---\nname: tea\ndescription: Brew tea.\n---\n# Tea\n</shell>"),
                SimReply.of("Saved.")));
        server.skills.save("cold-brew", COLD_BREW);
        server.skills.save("sourdough-starter", SOURDOUGH);
        open("/");

        page.locator("#open-skills").click();
        Locator skills = page.locator("#skill-list .skill");
        assertThat(skills).hasCount(2);
        assertThat(skills.locator(".skill-name")).hasText(new String[]{"cold-brew", "sourdough-starter"});
        assertThat(skills.locator(".skill-description")).hasText(new String[]{"Make cold brew coffee at home.", "Keep a sourdough starter alive."});

        // View one, rendered.
        page.getByRole(com.microsoft.playwright.options.AriaRole.BUTTON,
                new com.microsoft.playwright.Page.GetByRoleOptions().setName("View cold-brew")).click();
        assertThat(page.locator("#skill-view")).isVisible();
        assertThat(page.locator("#skill-view-name")).hasText("cold-brew");
        assertThat(page.locator("#skill-body h1")).hasText("Cold brew");
        assertThat(page.locator("#skill-body strong")).hasText("coarse");
        assertThat(page.locator("#skill-body pre code.hljs")).hasCount(1);
        assertThat(page.locator("#skill-frontmatter")).containsText("description: Make cold brew coffee at home.");
        screenshot("skillsPanelListsViewsDownloadsAndDeletes-view");

        // Download it: exactly the stored SKILL.md.
        Download download = page.waitForDownload(() -> page.locator("#skill-download").click());
        assertThat(download.suggestedFilename()).isEqualTo("cold-brew-SKILL.md"); // named by the skill, not ten files called SKILL.md
        assertThat(Files.readString(download.path())).isEqualTo(COLD_BREW);

        // Delete the other one, after confirming.
        page.locator("#skill-back").click();
        page.getByRole(com.microsoft.playwright.options.AriaRole.BUTTON,
                new com.microsoft.playwright.Page.GetByRoleOptions().setName("Delete sourdough-starter")).click();
        assertThat(page.locator(".skill[data-skill='sourdough-starter'] .confirm")).containsText("Delete sourdough-starter?");
        page.locator(".skill[data-skill='sourdough-starter'] .confirm-yes").click();
        assertThat(skills).hasCount(1);
        assertThat(skills.locator(".skill-name")).hasText(new String[]{"cold-brew"});
        assertThat(server.skills.get("sourdough-starter")).isEmpty();
        assertThat(server.skills.get("cold-brew")).contains(COLD_BREW);

        // A turn that writes a skill shows up in the open panel.
        sendMessage("Learn to brew tea");
        awaitEnd(turns().first());
        assertThat(skills.locator(".skill-name")).hasText(new String[]{"cold-brew", "tea"});
    }

    @Test
    void aCardOpensOnClickItsSkillMdIsEditedInThePageAndAllSkillsDownloadAsOneZip() throws Exception {
        start(new SimScript());
        server.skills.save("cold-brew", COLD_BREW);
        server.skills.save("sourdough-starter", SOURDOUGH);
        open("/");
        page.locator("#open-skills").click();

        // The card itself opens the skill (not only its View button).
        page.locator(".skill[data-skill='sourdough-starter'] .skill-description").click();
        assertThat(page.locator("#skill-view-name")).hasText("sourdough-starter");
        assertThat(page.locator("#skill-body h1")).hasText("Starter");

        // An invalid edit is refused with the store's own words, inline, and the text stays to be fixed.
        page.locator("#skill-edit").click();
        Locator source = page.locator("#skill-source");
        assertThat(source).hasValue(SOURDOUGH);
        assertThat(source).isFocused();
        String broken = SOURDOUGH.replace("description: Keep a sourdough starter alive.\n", "");
        source.fill(broken);
        page.locator("#skill-save").click();
        assertThat(page.locator("#skill-error")).isVisible();
        assertThat(page.locator("#skill-error")).containsText("description");
        assertThat(source).hasValue(broken);
        assertThat(server.skills.get("sourdough-starter")).contains(SOURDOUGH);
        screenshot("aCardOpensOnClickItsSkillMdIsEditedInThePageAndAllSkillsDownloadAsOneZip-error");

        // A valid one is saved and shown rendered.
        String fixed = SOURDOUGH.replace("Feed it daily.", "Feed it **twice** a day.");
        source.fill(fixed);
        page.locator("#skill-save").click();
        assertThat(page.locator("#skill-body strong")).hasText("twice");
        assertThat(page.locator("#skill-editor")).isHidden();
        assertThat(server.skills.get("sourdough-starter")).contains(fixed);

        // All skills as one zip in the Agent Skills layout: NAME/SKILL.md each.
        page.locator("#skill-back").click();
        Download zip = page.waitForDownload(() -> page.locator("#skills-zip").click());
        assertThat(zip.suggestedFilename()).isEqualTo("skills.zip");
        java.util.Map<String, String> files = new java.util.TreeMap<>();
        try (java.util.zip.ZipInputStream in = new java.util.zip.ZipInputStream(Files.newInputStream(zip.path()))) {
            for (java.util.zip.ZipEntry entry; (entry = in.getNextEntry()) != null; ) {
                files.put(entry.getName(), new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
            }
        }
        assertThat(files).containsExactly(java.util.Map.entry("cold-brew/SKILL.md", COLD_BREW),
                java.util.Map.entry("sourdough-starter/SKILL.md", fixed));

        // Escape cancels a delete confirmation (focus starts on Keep) and leaves the panel open.
        page.locator(".skill[data-skill='cold-brew'] .skill-actions .danger").click();
        assertThat(page.locator(".skill[data-skill='cold-brew'] .confirm button").nth(1)).isFocused();
        page.keyboard().press("Escape");
        assertThat(page.locator(".skill[data-skill='cold-brew'] .confirm")).hasCount(0);
        assertThat(page.locator("#skills-panel")).isVisible();
        assertThat(server.skills.get("cold-brew")).contains(COLD_BREW);
    }
}
