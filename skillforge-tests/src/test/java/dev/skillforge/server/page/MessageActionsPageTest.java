package dev.skillforge.server.page;

import com.fasterxml.jackson.databind.JsonNode;
import com.microsoft.playwright.Download;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.options.ColorScheme;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.server.provider.sim.SimRequest;
import dev.skillforge.testkit.SimScript;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.util.List;
import java.util.regex.Pattern;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/** Copy, edit and resend (a fork that keeps the cache, shown as a version), regenerate, search and export, in the page. */
class MessageActionsPageTest extends BrowserTest {

    static final String CODE = "echo \"steep 12 hours\" > brew.txt";

    @Test
    void copyTakesAnAnswerACodeBlockAndACommandsOutput() throws Exception {
        start(new SimScript(SimReply.of("Looking.\n\n<shell>skill list</shell>"),
                SimReply.of("Do this:\n\n```bash\n" + CODE + "\n```\n\nThen wait.")));
        open("/");
        context.grantPermissions(List.of("clipboard-read", "clipboard-write"));
        sendMessage("How do I brew?");
        Locator turn = awaitEnd(turns().first());

        turn.locator(".iteration").nth(1).locator(".code-block .copy-code").click();
        assertThat(clipboard()).isEqualTo(CODE + "\n");
        assertThat(turn.locator(".copy-code")).hasText("Copied");

        command(turn, "cmd-0-0").locator(".copy-output").click();
        assertThat(clipboard()).isEqualTo(conversation(conversationId()).path("turns").get(0).path("iterations").get(0)
                .path("commands").get(0).path("result").asText());

        turn.locator(".answer-actions .copy").click();
        assertThat(clipboard()).isEqualTo("Looking.\n\nDo this:\n\n```bash\n" + CODE + "\n```\n\nThen wait.");
        turn.locator(".user-actions .copy").click();
        assertThat(clipboard()).isEqualTo("How do I brew?");
    }

    private String clipboard() {
        return (String) page.evaluate("() => navigator.clipboard.readText()");
    }

    @Test
    void editingAnEarlierMessageForksTheChatAndTheForksFirstRequestHitsTheCache() throws Exception {
        start(new SimScript(SimReply.of("Noted."), SimReply.of("First answer."), SimReply.of("Edited answer."),
                SimReply.of("Regenerated answer.")));
        open("/");
        sendMessage("Remember these notes:\n" + ChatPageTest.NOTES); // long enough for the provider's cache
        awaitEnd(turns().first());
        sendMessage("Summarise them");
        awaitEnd(turns().nth(1));
        String original = conversationId();
        JsonNode before = conversation(original);
        int requestsBefore = server.sim.requests().size();

        // Regenerate is offered on the last answer only.
        assertThat(turns().first().locator(".regenerate")).isHidden();
        assertThat(turns().nth(1).locator(".regenerate")).isVisible();

        Locator second = turns().nth(1);
        second.locator(".user-actions .edit").click();
        Locator box = second.locator(".edit-input");
        assertThat(box).isFocused();
        assertThat(box).hasValue("Summarise them");
        box.press("Escape"); // cancels the edit
        assertThat(box).hasCount(0);
        second.locator(".user-actions .edit").click();
        second.locator(".edit-input").fill("Summarise them in one line");
        screenshot("editingAnEarlierMessageForksTheChatAndTheForksFirstRequestHitsTheCache-editing");
        second.locator(".edit-input").press("Enter");

        // The page now shows the fork: the shared first turn, then the edited message and its answer.
        assertThat(page).not().hasURL(Pattern.compile(original + "$"));
        Locator edited = awaitEnd(turns().nth(1));
        String fork = conversationId();
        assertThat(turns()).hasCount(2);
        assertThat(turns().first().locator(".iteration .content")).hasText("Noted.");
        assertThat(edited.locator(".user-text")).hasText("Summarise them in one line");
        assertThat(edited.locator(".iteration .content")).hasText("Edited answer.");
        SimRequest forkRequest = server.sim.requests().get(requestsBefore);
        assertThat(forkRequest.cachedTokens()).as("the provider's cache served the shared prefix").isGreaterThanOrEqualTo(1024);
        assertThat(edited.locator(".turn-meta .stats")).hasText(Pattern.compile("cache [1-9]\\d*%"));

        // One row, the fork (a version of the same conversation: BranchesPageTest); the original as it was.
        assertThat(page.locator(".conversation")).hasCount(1);
        assertThat(page.locator(".conversation").first()).hasAttribute("data-id", fork);
        assertThat(conversation(original).path("entries")).isEqualTo(before.path("entries"));
        assertThat(conversation(fork).path("forkedFrom").asText()).isEqualTo(original);

        // Regenerate the last answer: another fork, the same message, a new answer, the cache hit again.
        edited.locator(".regenerate").click();
        Locator regenerated = awaitEnd(turns().nth(1));
        assertThat(page).not().hasURL(Pattern.compile(fork + "$"));
        assertThat(regenerated.locator(".user-text")).hasText("Summarise them in one line");
        assertThat(regenerated.locator(".iteration .content")).hasText("Regenerated answer.");
        assertThat(server.sim.requests().getLast().cachedTokens()).isGreaterThanOrEqualTo(1024);
        assertThat(Json.write(server.sim.requests().getLast().messages())).isEqualTo(Json.write(forkRequest.messages()));
        assertThat(page.locator(".conversation")).hasCount(1);
        page.emulateMedia(new Page.EmulateMediaOptions().setColorScheme(ColorScheme.DARK));
        screenshot("editingAnEarlierMessageForksTheChatAndTheForksFirstRequestHitsTheCache-dark");
    }

    @Test
    void searchFindsChatsByTitleAndMessageTextAndExportDownloadsMarkdownAndJson() throws Exception {
        start(new SimScript(SimReply.of("Steep it twelve hours."), SimReply.of("Feed the starter daily.")));
        open("/");
        sendMessage("Cold brew coffee");
        awaitEnd(turns().first());
        String coffee = conversationId();
        page.keyboard().press("Control+Shift+O");
        sendMessage("Sourdough bread");
        awaitEnd(turns().first());

        page.keyboard().press("Control+k");
        Locator search = page.locator("#search");
        assertThat(search).isFocused();
        search.pressSequentially("twelve");
        Locator rows = page.locator(".conversation");
        assertThat(rows).hasCount(1);
        assertThat(rows.first()).hasAttribute("data-id", coffee);
        search.fill("nothing like this");
        assertThat(rows).hasCount(0);
        assertThat(page.locator("#conversation-list-empty")).hasText("No chat has “nothing like this”.");
        search.press("Escape");
        assertThat(search).hasValue("");
        assertThat(rows).hasCount(2);

        // Export the chat shown (the bread one) as Markdown and as JSON, named by its title.
        Download markdown = page.waitForDownload(() -> page.locator("#export-markdown").click());
        assertThat(markdown.suggestedFilename()).isEqualTo("Sourdough-bread.md");
        assertThat(Files.readString(markdown.path())).contains("Sourdough bread").contains("Feed the starter daily.");
        Download json = page.waitForDownload(() -> page.locator("#export-json").click());
        assertThat(json.suggestedFilename()).isEqualTo("Sourdough-bread.json");
        assertThat(Json.parse(Files.readString(json.path())).toString()).contains("Feed the starter daily.");
    }
}
