package dev.skillforge.server.page;

import com.fasterxml.jackson.databind.JsonNode;
import com.microsoft.playwright.Locator;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.server.provider.sim.SimRequest;
import dev.skillforge.testkit.SimScript;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.regex.Pattern;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An edited message and a regenerated answer are versions inside one conversation (a branch of its thread each, which
 * keeps the provider's cache): one row in the list, a ‹ n/m › switch on the turn, switching back shows the first
 * version; and Continue after Stop, a new turn asking the model to go on.
 */
class BranchesPageTest extends BrowserTest {

    @Test
    void anEditedMessageIsASecondVersionOfItInTheSameConversation() throws Exception {
        start(new SimScript(SimReply.of("Noted."), SimReply.of("First answer."), SimReply.of("Edited answer.")));
        open("/");
        sendMessage("Remember these notes:\n" + ChatPageTest.NOTES); // long enough for the provider's cache
        awaitEnd(turns().first());
        sendMessage("Summarise them");
        awaitEnd(turns().nth(1));
        String original = conversationId();
        assertThat(page.locator(".branch-switch")).hasCount(0);

        Locator second = turns().nth(1);
        second.locator(".user-actions .edit").click();
        second.locator(".edit-input").fill("Summarise them in one line");
        second.locator(".edit-input").press("Enter");
        Locator edited = awaitEnd(turns().nth(1));
        assertThat(edited.locator(".iteration .content")).hasText("Edited answer.");
        String branch = conversationId();
        assertThat(branch).isNotEqualTo(original);
        assertThat(server.sim.requests().getLast().cachedTokens()).as("the provider's cache served the shared prefix")
                .isGreaterThanOrEqualTo(1024);

        // One conversation in the list; the switch is on the edited message, the second of two.
        Locator rows = page.locator(".conversation");
        assertThat(rows).hasCount(1);
        assertThat(rows.first()).hasAttribute("data-id", branch);
        assertThat(rows.first().locator(".conversation-open")).hasAttribute("aria-current", "page");
        Locator messageSwitch = edited.locator(".message.user .branch-switch");
        assertThat(messageSwitch.locator(".branch-position")).hasText("Version 2/2");
        assertThat(messageSwitch.locator("button").last()).isDisabled();
        assertThat(turns().first().locator(".branch-switch")).hasCount(0);
        assertThat(page.locator("#export-markdown")).hasAttribute("href", Pattern.compile(branch));
        assertAccessible(page, "an edited message's versions");
        screenshot("anEditedMessageIsASecondVersionOfItInTheSameConversation-2of2");

        // Back to the first version: its message and answer, still one row, which now opens it.
        messageSwitch.getByLabel("Previous version of this message").click();
        assertThat(page).hasURL(Pattern.compile(original + "$"));
        Locator first = turns().nth(1);
        assertThat(first.locator(".user-text")).hasText("Summarise them");
        assertThat(first.locator(".iteration .content")).hasText("First answer.");
        assertThat(first.locator(".message.user .branch-position")).hasText("Version 1/2");
        assertThat(rows).hasCount(1);
        assertThat(rows.first()).hasAttribute("data-id", original);
        assertThat(page.locator("#export-markdown")).hasAttribute("href", Pattern.compile(original));
        assertThat(conversation(original).path("turns")).hasSize(2);

        // A reload opens what the list opens; forward again.
        page.reload();
        assertThat(turns().nth(1).locator(".message.user .branch-position")).hasText("Version 1/2");
        turns().nth(1).getByLabel("Next version of this message").click();
        assertThat(page).hasURL(Pattern.compile(branch + "$"));
        assertThat(turns().nth(1).locator(".user-text")).hasText("Summarise them in one line");
        assertThat(rows.first()).hasAttribute("data-id", branch);
    }

    @Test
    void aRegeneratedAnswerIsASecondVersionOfIt() throws Exception {
        start(new SimScript(SimReply.of("Seven."), SimReply.of("Three.")));
        open("/");
        sendMessage("Pick a number");
        awaitEnd(turns().first());
        String original = conversationId();

        turns().first().locator(".regenerate").click();
        Locator regenerated = awaitEnd(turns().first());
        assertThat(regenerated.locator(".iteration .content")).hasText("Three.");
        String branch = conversationId();
        assertThat(branch).isNotEqualTo(original);
        assertThat(page.locator(".conversation")).hasCount(1);

        // The switch is under the answer (the message is the same in both versions).
        Locator answerSwitch = regenerated.locator(".message.assistant .branch-switch");
        assertThat(answerSwitch.locator(".branch-position")).hasText("Version 2/2");
        assertThat(regenerated.locator(".message.user .branch-switch")).hasCount(0);
        assertAccessible(page, "a regenerated answer's versions");
        screenshot("aRegeneratedAnswerIsASecondVersionOfIt-2of2");

        answerSwitch.getByLabel("Previous version of this answer").click();
        assertThat(page).hasURL(Pattern.compile(original + "$"));
        assertThat(turns().first().locator(".iteration .content")).hasText("Seven.");
        assertThat(turns().first().locator(".message.assistant .branch-position")).hasText("Version 1/2");
        assertThat(page.locator(".conversation")).hasCount(1);
        assertThat(page.locator(".conversation").first()).hasAttribute("data-id", original);
    }

    @Test
    void continueAfterStopAsksTheModelToGoOnInANewTurn() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        start(new SimScript(SimReply.of("Step one,", " step two").withFault(new SimReply.Hold(1, release)),
                SimReply.of("Step two, step three.")));
        open("/");
        sendMessage("List the steps");
        Locator stopped = turns().first();
        assertThat(stopped.locator(".iteration .content")).containsText("Step one,");
        page.locator("#stop").click();
        assertThat(stopped).hasAttribute("data-status", "cancelled");
        release.countDown();
        String id = conversationId();
        String storedAnswer = conversation(id).path("entries").get(1).path("content").asText();

        Locator continueButton = stopped.locator(".turn-meta .continue");
        assertThat(continueButton).isVisible();
        assertAccessible(page, "a stopped answer with Continue");
        screenshot("continueAfterStopAsksTheModelToGoOnInANewTurn-stopped");
        continueButton.click();
        Locator next = awaitEnd(turns().nth(1));
        assertThat(next.locator(".user-text")).hasText("Continue from where you stopped.");
        assertThat(next.locator(".iteration .content")).hasText("Step two, step three.");
        assertThat(stopped.locator(".turn-meta .continue")).isHidden(); // only the last turn offers it

        // A new turn: the stopped answer stays as stored, and the request extends the one before.
        JsonNode entries = conversation(id).path("entries");
        assertThat(entries).extracting(e -> e.path("content").asText())
                .containsExactly("List the steps", storedAnswer, "Continue from where you stopped.", "Step two, step three.");
        SimRequest request = server.sim.requests().getLast();
        JsonNode messages = request.messages();
        assertThat(messages.get(messages.size() - 2).path("content").asText()).isEqualTo(storedAnswer);
        assertThat(messages.get(messages.size() - 1).path("content").asText()).isEqualTo("Continue from where you stopped.");
        assertThat(page.locator(".conversation")).hasCount(1);
    }
}
