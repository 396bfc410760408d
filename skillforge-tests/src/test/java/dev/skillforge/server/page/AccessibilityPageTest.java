package dev.skillforge.server.page;

import com.microsoft.playwright.Locator;
import com.microsoft.playwright.options.ColorScheme;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.testkit.SimScript;
import org.junit.jupiter.api.Test;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;

/**
 * axe-core on the page's main views, in both colour schemes and at phone width: the empty chat, a chat with an
 * answer (Markdown, a code block, a table, commands and their output), the skills panel and a skill: no serious or
 * critical finding anywhere.
 */
class AccessibilityPageTest extends BrowserTest {

    private static final String ANSWER = """
            Here is what I found.

            | Step | Time |
            |---|---|
            | Grind coarse | 2 min |
            | Steep | 16 h |

            ```python
            def brew(hours=16):
                return "a very long line of code that does not fit the width of the message and has to scroll sideways" * 2
            ```

            <shell>echo "steep for sixteen hours"</shell>
            """;

    @Test
    void theMainViewsPassAxeInTheLightScheme() throws Exception {
        walkThrough(ColorScheme.LIGHT, 1280, 860);
    }

    @Test
    void theMainViewsPassAxeInTheDarkSchemeAtPhoneWidth() throws Exception {
        walkThrough(ColorScheme.DARK, 390, 844);
    }

    private void walkThrough(ColorScheme scheme, int width, int height) throws Exception {
        start(new SimScript(SimReply.of(ANSWER), SimReply.of("Sixteen hours it is."), SimReply.of("Done: the skill is saved.\n\n<shell>skill set cold-brew\n---\nname: cold-brew\n"
                + "description: Make cold brew coffee.\n---\n# Cold brew\n\nSteep coarse coffee for 16 hours.\n</shell>"), SimReply.of("Saved.")));
        open("/", width, height, scheme);
        assertAccessible(page, "the empty chat");

        sendMessage("How do I make cold brew?");
        Locator turn = awaitEnd(turns().first());
        assertThat(turn.locator("pre code")).not().hasCount(0);
        assertAccessible(page, "a chat with an answer");
        sendMessage("Save it as a skill");
        assertThat(awaitEnd(turns().nth(1))).hasAttribute("data-status", "complete");
        screenshot("accessibleChat" + scheme);

        if (width < 760) {
            page.locator("#toggle-sidebar").click();
            assertAccessible(page, "the conversation list at phone width");
            page.locator("#toggle-sidebar").click();
        }
        page.locator("#open-skills").click();
        assertThat(page.locator("#skill-list .skill")).hasCount(1);
        assertAccessible(page, "the skills panel");
        page.locator("#skill-list .skill").first().click();
        assertThat(page.locator("#skill-view")).isVisible();
        assertAccessible(page, "a skill");
        screenshot("accessibleSkill" + scheme);
    }
}
