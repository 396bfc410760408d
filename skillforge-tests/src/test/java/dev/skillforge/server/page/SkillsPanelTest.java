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
        assertThat(download.suggestedFilename()).isEqualTo("SKILL.md");
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
}
