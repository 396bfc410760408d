package dev.skillforge.server.page;

import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Route;
import com.microsoft.playwright.options.ColorScheme;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.testkit.SimScript;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a new user ran into on the page (a walk-through of the page as a new user): focus and keyboard, a command cut off
 * by Stop, titles and dates, honest errors, a second tab, the "cache 0%" figure.
 */
class EverydayPageTest extends BrowserTest {

    /** Makes the page hidden (true) or shown (false), as switching tabs does. */
    static final String VISIBILITY = """
            hidden => {
              Object.defineProperty(document, 'hidden', { value: hidden, configurable: true });
              document.dispatchEvent(new Event('visibilitychange'));
            }""";

    @Test
    void theBoxHasTheFocusWheneverThePersonCanTypeAndTheKeyboardDrivesTheList() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        start(new SimScript(SimReply.of("Answered."), SimReply.of("Second."),
                SimReply.of("Writing slowly", " and more").withFault(new SimReply.Hold(1, release))));
        open("/");
        Locator input = page.locator("#input");
        assertThat(input).isFocused(); // on load

        page.locator("#empty-state .example").first().click();
        assertThat(input).isFocused(); // after an example prompt
        awaitEnd(turns().first());
        assertThat(input).isFocused(); // after the answer ended
        String first = conversationId();

        page.keyboard().press("Control+Shift+O"); // a new chat
        assertThat(page.locator("#empty-state")).isVisible();
        assertThat(input).isFocused();
        sendMessage("A second chat");
        awaitEnd(turns().first());

        // Escape stops a running answer.
        sendMessage("Take your time");
        assertThat(turns().nth(1).locator(".iteration .content")).containsText("Writing slowly");
        page.keyboard().press("Escape");
        assertThat(turns().nth(1)).hasAttribute("data-status", "cancelled");
        release.countDown();
        assertThat(input).isFocused();

        // One tab stop per conversation row; F2 renames, Delete asks (focus on Keep), Escape cancels.
        Locator rows = page.locator(".conversation");
        assertThat(rows).hasCount(2);
        for (int i = 0; i < 2; i++) {
            Object tabStops = rows.nth(i).evaluate("row => [...row.querySelectorAll('a, button, input')].filter(e => e.tabIndex >= 0).length");
            assertThat(((Number) tabStops).intValue()).isEqualTo(1);
        }
        Locator firstRow = page.locator(".conversation[data-id='" + first + "'] .conversation-open");
        firstRow.focus();
        page.keyboard().press("Delete");
        Locator confirm = page.locator(".conversation .confirm");
        assertThat(confirm).isVisible();
        assertThat(confirm.locator("button").nth(1)).hasText("Keep");
        assertThat(confirm.locator("button").nth(1)).isFocused();
        page.keyboard().press("Escape");
        assertThat(confirm).hasCount(0);
        assertThat(rows).hasCount(2);
        assertThat(firstRow).isFocused();
        assertThat(turns()).hasCount(2); // Escape cancelled the confirmation only
        page.keyboard().press("F2");
        page.locator(".rename-input").fill("Renamed from the keyboard");
        page.keyboard().press("Enter");
        assertThat(firstRow.locator(".conversation-title")).hasText("Renamed from the keyboard");
        page.keyboard().press("ArrowUp");
        assertThat(page.locator(".conversation-open").first()).isFocused();
    }

    @Test
    void openingAChatFromTheListLeavesTheFocusInTheBoxAndStopLeavesNoRunningMark() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        start(new SimScript(SimReply.of("First."), SimReply.of("Second."),
                SimReply.of("Writing slowly", " and more").withFault(new SimReply.Hold(1, release))));
        open("/");
        sendMessage("One chat");
        awaitEnd(turns().first());
        page.locator("#new-chat").click();
        sendMessage("Another chat");
        awaitEnd(turns().first());

        page.locator(".conversation-open").nth(1).click();
        assertThat(turns().first().locator(".bubble")).hasText("One chat");
        assertThat(page.locator("#input")).isFocused();

        sendMessage("Take your time");
        assertThat(turns().nth(1).locator(".iteration .content")).containsText("Writing slowly");
        assertThat(page.locator(".conversation[data-running=true]")).hasCount(1);
        page.locator("#stop").click();
        assertThat(turns().nth(1)).hasAttribute("data-status", "cancelled");
        release.countDown();
        assertThat(page.locator(".conversation[data-running=true]")).hasCount(0);
    }

    @Test
    void aRefusedFirstMessageLeavesNoEmptyChatBehindAndKeepsTheMessage() throws Exception {
        start(new SimScript(SimReply.of("unused")));
        open("/");
        page.locator("#file-input").setInputFiles(new com.microsoft.playwright.options.FilePayload("clip.mp4", "video/mp4", new byte[] {0, 0, 0, 24}));
        sendMessage("What happens in this clip?");
        assertThat(turns().first().locator(".turn-error")).containsText("video/mp4");
        assertThat(page.locator("#input")).hasValue("What happens in this clip?");
        assertThat(page.locator(".conversation")).hasCount(0);
        assertThat(page.locator("#conversation-list-empty")).isVisible();
        assertThat((String) page.evaluate("() => location.hash")).isEmpty();
        assertThat(page.locator("#toast")).isHidden(); // not "deleted in another tab"
        assertThat(server.conversations.list(dev.skillforge.server.people.Caller.LOCAL, 10, 0)).isEmpty();
    }

    @Test
    void aCommandCutOffByStopShowsAsAnUnfinishedCommandNotAsAHeading() throws Exception {
        CountDownLatch never = new CountDownLatch(1);
        start(new SimScript(SimReply.of("Saving it.\n\n<shell>skill set cold-brew\n---\nname: cold-brew\n",
                "description: Cold brew.\n---\n# Cold brew\n\nSteep", " twelve hours.").withFault(new SimReply.Hold(2, never))));
        open("/");
        sendMessage("Learn cold brew");
        Locator turn = turns().first();
        assertThat(turn.locator(".command.writing")).isVisible();
        page.locator("#stop").click();
        assertThat(turn).hasAttribute("data-status", "cancelled");
        never.countDown();
        assertUnfinishedCommand(turn);

        page.reload();
        assertUnfinishedCommand(awaitEnd(turns().first()));
    }

    private void assertUnfinishedCommand(Locator turn) {
        Locator content = turn.locator(".iteration .content");
        assertThat(content.locator("h1, h2, h3, hr")).hasCount(0);
        assertThat(content.locator(".command.unfinished .command-text")).hasText(
                "skill set cold-brew\n---\nname: cold-brew\ndescription: Cold brew.\n---\n# Cold brew\n\nSteep");
        assertThat(content.locator(".command.unfinished .status")).hasText("not run: unfinished");
        assertThat(content.locator("p").first()).hasText("Saving it.");
    }

    @Test
    void titlesTellChatsApartWithDatesInGroupsAndRenamingKeepsTheOrder() throws Exception {
        start(new SimScript(SimReply.of("One."), SimReply.of("Two.")));
        open("/");
        sendMessage("Learn how to make cold brew coffee with a French press");
        awaitEnd(turns().first());
        String first = conversationId();
        page.locator("#new-chat").click();
        sendMessage("Learn how to make cold brew coffee in a big jar");
        awaitEnd(turns().first());

        Locator titles = page.locator(".conversation .conversation-title");
        assertThat(titles).hasText(new String[]{"Learn how to make cold brew coffee in a big jar",
                "Learn how to make cold brew coffee with a French press"});
        for (int i = 0; i < 2; i++) {
            // all of the title is shown (two lines), not cut at the sidebar's width
            assertThat((Boolean) titles.nth(i).evaluate("e => e.scrollHeight <= e.clientHeight + 1")).isTrue();
        }
        assertThat(page.locator(".conversation-group-name")).hasText(new String[]{"Today"});
        assertThat(page.locator(".conversation-open").first()).hasAttribute("data-when", java.util.regex.Pattern.compile("\\d{1,2}:\\d{2}"));
        // one evaluation in the page: the list can be re-rendered between finding a row and reading its style
        assertThat((String) page.evaluate("() => getComputedStyle(document.querySelector('.conversation-open'), '::after').content"))
                .matches("\"\\d{1,2}:\\d{2}.*\""); // shown under the title

        page.locator(".conversation[data-id='" + first + "'] .rename").click();
        page.locator(".rename-input").fill("French press");
        page.locator(".rename-input").press("Enter");
        assertThat(titles).hasText(new String[]{"Learn how to make cold brew coffee in a big jar", "French press"});
        page.emulateMedia(new Page.EmulateMediaOptions().setColorScheme(ColorScheme.DARK));
        screenshot("titlesTellChatsApartWithDatesInGroupsAndRenamingKeepsTheOrder-dark");
    }

    @Test
    void errorsSayWhatHappenedOfferRetryOnlyWhereItHelpsAndKeepTheMessage() throws Exception {
        start(new SimScript(SimReply.of("Fine.")));
        open("/");

        // The server is unreachable: words, not the browser's "Failed to fetch"; the message stays in the box.
        page.route("**/api/conversations", Route::abort);
        sendMessage("Hello while the server is down");
        Locator down = awaitEnd(turns().first());
        assertThat(down.locator(".error-text")).containsText("cannot be reached");
        assertThat(down.locator(".error-text")).not().containsText("Failed to fetch");
        assertThat(down.locator(".turn-error button")).hasText("Retry");
        assertThat(page.locator("#input")).hasValue("Hello while the server is down");
        page.unroute("**/api/conversations");
        page.locator("#input").fill("");

        // Over the size limit: no Retry (it cannot help), and the message is back in the box to be shortened.
        String huge = "x".repeat(1024 * 1024 + 10);
        page.locator("#input").fill(huge);
        page.locator("#input").press("Enter");
        Locator tooLarge = awaitEnd(turns().nth(1));
        assertThat(tooLarge.locator(".error-text")).containsText("1 MiB");
        assertThat(tooLarge.locator(".turn-error button")).hasCount(0);
        assertThat((Number) page.evaluate("() => document.querySelector('#input').value.length")).isEqualTo(huge.length());
        page.locator("#input").fill("");

        // A provider without its key: the error says so, and Retry is not offered.
        page.route("**/messages", route -> route.fulfill(new Route.FulfillOptions().setStatus(200).setContentType("text/event-stream")
                .setBody("id: 1\ndata: {\"type\":\"error\",\"iteration\":0,\"code\":\"provider_no_key\",\"message\":\"The provider openai has no API key\"}\n\n")));
        sendMessage("Hello");
        Locator noKey = awaitEnd(turns().nth(2));
        assertThat(noKey.locator(".error-text")).hasText("The provider openai has no API key");
        assertThat(noKey.locator(".turn-error button")).hasCount(0);
        screenshot("errorsSayWhatHappenedOfferRetryOnlyWhereItHelpsAndKeepTheMessage");
    }

    @Test
    void aSecondTabFollowsTheRunningTurnInsteadOfFailingWith409() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        start(new SimScript(SimReply.of("First."), SimReply.of("Counting", " on").withDelay(Duration.ofMillis(20))
                .withFault(new SimReply.Hold(1, release))));
        open("/");
        sendMessage("Start");
        awaitEnd(turns().first());
        String id = conversationId();

        BrowserContext otherContext = browser.newContext();
        Page other = otherTab(otherContext, id);

        sendMessage("Count in this tab");
        assertThat(turns().nth(1).locator(".iteration .content")).containsText("Counting");
        other.locator("#input").fill("And this from the other tab");
        other.locator("#input").press("Enter");

        Locator followed = other.locator("#turns > .turn").nth(1);
        assertThat(followed.locator(".user-text")).hasText("Count in this tab");
        assertThat(followed).hasAttribute("data-status", "running");
        assertThat(other.locator("#input")).hasValue("And this from the other tab"); // not lost
        release.countDown();
        assertThat(followed).hasAttribute("data-status", "complete");
        assertThat(other.locator(".conversation[data-id='" + id + "']")).hasAttribute("data-running", "false");
        assertThat(other.locator("#turns > .turn")).hasCount(2);
        otherContext.close();
    }

    @Test
    void everyOpenTabSeesTheListAndARunningTurnChangeWithoutReloading() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        start(new SimScript(SimReply.of("First."), SimReply.of("Counting", " on").withFault(new SimReply.Hold(1, release))));
        open("/");
        sendMessage("Start");
        awaitEnd(turns().first());
        String id = conversationId();

        BrowserContext otherContext = browser.newContext();
        Page other = otherTab(otherContext, id);

        // A turn started in this tab runs in the other one too, and ends there.
        sendMessage("Count");
        Locator mirrored = other.locator("#turns > .turn").nth(1);
        assertThat(mirrored.locator(".user-text")).hasText("Count");
        assertThat(mirrored.locator(".iteration .content")).containsText("Counting");
        assertThat(other.locator(".conversation[data-id='" + id + "']")).hasAttribute("data-running", "true");
        release.countDown();
        assertThat(mirrored).hasAttribute("data-status", "complete");
        assertThat(other.locator(".conversation[data-id='" + id + "']")).hasAttribute("data-running", "false");

        // A hidden tab lets its stream go (HTTP/1.1 allows six connections per server) and catches up when shown.
        other.evaluate(VISIBILITY, true);
        page.locator(".conversation[data-id='" + id + "'] .rename").click();
        page.locator(".rename-input").fill("Counting chat");
        page.locator(".rename-input").press("Enter");
        assertThat(page.locator(".conversation[data-id='" + id + "'] .conversation-title")).hasText("Counting chat");
        other.waitForTimeout(600); // a live stream would have brought the change by now
        assertThat(other.locator(".conversation[data-id='" + id + "'] .conversation-title").textContent()).isEqualTo("Start");
        other.evaluate(VISIBILITY, false);
        assertThat(other.locator(".conversation[data-id='" + id + "'] .conversation-title")).hasText("Counting chat");

        // A deletion here shows in the other tab.
        page.locator(".conversation[data-id='" + id + "'] .delete").click();
        page.locator(".conversation .confirm-yes").click();
        assertThat(other.locator(".conversation")).hasCount(0);
        assertThat(other.locator("#toast")).containsText("deleted");
        assertThat(other.locator("#empty-state")).isVisible();
        otherContext.close();
    }

    /** The conversation {@code id}, with its one turn, in another browser (no storage shared with this one). */
    private Page otherTab(BrowserContext otherContext, String id) {
        Page other = otherContext.newPage();
        other.onPageError(error -> browserErrors.add("other tab: " + error));
        other.navigate(server.url("/#/c/" + id));
        assertThat(other.locator("body[data-ready=true]")).hasCount(1);
        assertThat(other.locator("#turns > .turn")).hasCount(1);
        return other;
    }

    @Test
    void cacheZeroSaysWhyWhenThePromptIsTooShortToCache() throws Exception {
        start(new SimScript(SimReply.of("Short.")));
        open("/");
        sendMessage("Hi");
        Locator turn = awaitEnd(turns().first());
        assertThat(turn.locator(".turn-meta .stats")).containsText("cache 0%");
        Locator note = turn.locator(".turn-meta .cache-note");
        assertThat(note).hasText("prompt too short to cache");
        assertThat(note).hasAttribute("title", java.util.regex.Pattern.compile("under 1,024 tokens .* not a fault"));
    }

    @Test
    void aMessageSentWhileAChatOpensGoesToThatChatAndShows() throws Exception {
        start(new SimScript(SimReply.of("First."), SimReply.of("Second."), SimReply.of("Third.")));
        open("/");
        sendMessage("One chat");
        awaitEnd(turns().first());
        String first = conversationId();
        page.locator("#new-chat").click();
        sendMessage("Another chat");
        awaitEnd(turns().first());

        // The first chat's stored state arrives late: a message sent meanwhile waits for it instead of being wiped by it.
        page.evaluate("id => { const original = window.fetch; window.fetch = (url, options) => String(url).endsWith('/api/conversations/' + id)"
                + " ? original(url, options).then(answer => new Promise(done => setTimeout(() => done(answer), 800)))"
                + " : original(url, options); }", first);
        page.evaluate("id => { location.hash = '#/c/' + id; }", first);
        sendMessage("And one more");
        assertThat(turns()).hasCount(2);
        awaitEnd(turns().nth(1));
        assertThat(turns().first()).containsText("One chat");
        assertThat(turns().nth(1)).containsText("And one more");
        assertThat(conversationId()).isEqualTo(first);
    }
}
