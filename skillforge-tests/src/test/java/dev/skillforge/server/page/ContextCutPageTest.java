package dev.skillforge.server.page;

import com.fasterxml.jackson.databind.JsonNode;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.options.ColorScheme;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.server.provider.sim.SimResponder;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.stream.IntStream;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/** The chat page when a conversation outgrows the model's context window (README: Context window). */
class ContextCutPageTest extends BrowserTest {

    /** Small, so that a few turns outgrow it (the system prompt alone is some 930 tokens). */
    private static final int WINDOW = 4608;
    private static final String NOTES = "---\nname: coffee-notes\ndescription: Notes on grinding and brewing coffee.\n---\n# Coffee notes\n\n"
            + "Grind coarse for cold brew and French press, fine for espresso, medium for filters. ".repeat(20);
    private static final String ANSWER = "Grind coarse, as the notes say.";
    /**
     * Reads the long skill on every turn (some 450 tokens of tool output each), then answers; the answer
     * right after the cut (the request starts with the note) is held after its first chunk until {@code release},
     * so the page is seen while that turn still runs.
     */
    private static SimResponder reader(CountDownLatch release) {
        return messages -> {
            if (!messages.getLast().content().startsWith("[Shell Output]")) {
                return SimReply.of("Reading the notes again: <shell>skill get coffee-notes</shell>");
            }
            return messages.get(1).content().startsWith("[Context note]")
                    ? SimReply.of("Grind ", "coarse, ", "as the notes say.").withFault(new SimReply.Hold(1, release))
                    : SimReply.of(ANSWER);
        };
    }

    @Test
    void aContextCutIsMarkedAboveTheFirstMessageTheModelStillSeesWhileStreamingAndAfterAReload() throws Exception {
        CountDownLatch seen = new CountDownLatch(1);
        start(reader(seen), WINDOW);
        server.skills.save("coffee-notes", NOTES);
        open("/");

        // Ask until the model's view is cut: each turn ends, or the mark appears while it still streams.
        Locator cut = page.locator(".context-cut");
        int asked = 0;
        do {
            sendMessage(question(++asked));
            Locator ended = page.locator("#turns > .turn[data-status=complete]").nth(asked - 1);
            assertThat(ended.or(cut)).hasCount(1);
        } while (cut.count() == 0 && asked < 12);
        assertThat(cut).hasCount(1);
        Locator cutTurn = turns().last();
        assertThat(cutTurn).hasAttribute("data-status", "running");
        assertThat(asked).as("turns asked until the first cut").isGreaterThan(2);

        // The mark sits where the model's view now starts: the model still sees the turn before this one.
        JsonNode stored = conversation(conversationId());
        JsonNode storedCut = stored.path("turns").get(asked - 1).path("contextCut");
        JsonNode keptFrom = stored.path("entries").get(storedCut.path("keptFromSeq").asInt());
        assertThat(keptFrom.path("content").asText()).isEqualTo(question(asked - 1));
        assertMarkedAbove(question(asked - 1), storedCut.path("note").asText(), asked);
        String shot = "aContextCutIsMarkedAboveTheFirstMessageTheModelStillSeesWhileStreamingAndAfterAReload";
        screenshot(shot + "-live");
        page.emulateMedia(new Page.EmulateMediaOptions().setColorScheme(ColorScheme.DARK));
        screenshot(shot + "-dark");
        page.emulateMedia(new Page.EmulateMediaOptions().setColorScheme(ColorScheme.LIGHT));
        seen.countDown();
        awaitEnd(cutTurn);
        assertThat(cutTurn).hasAttribute("data-status", "complete");

        page.reload();
        assertThat(turns()).hasCount(asked);
        assertMarkedAbove(question(asked - 1), storedCut.path("note").asText(), asked);
    }

    /**
     * One mark, folded, right above the person's message {@code firstSeen}, saying that the model no
     * longer sees what is above it; unfolded, the note the model reads instead. Every message of the
     * {@code asked} turns is still shown, the earlier ones above the mark.
     */
    private void assertMarkedAbove(String firstSeen, String note, int asked) {
        Locator cut = page.locator(".context-cut");
        assertThat(cut).hasCount(1);
        assertThat(page.locator(".context-cut + .message.user .user-text")).hasText(firstSeen);
        assertThat(cut).not().hasAttribute("open", "");
        assertThat(cut.locator("summary")).hasText("The conversation outgrew the model's context window: "
                + "the model no longer sees the messages above this line.");
        assertThat(cut.locator(".context-note")).isHidden();
        cut.locator("summary").click();
        assertThat(cut.locator(".context-note")).isVisible();
        assertThat(cut.locator(".context-note").textContent()).isEqualTo(note);
        assertThat(turns().locator(".user-text")).hasText(IntStream.rangeClosed(1, asked).mapToObj(ContextCutPageTest::question).toArray(String[]::new));
        assertThat(turns().first().locator(".iteration .content").last()).hasText(ANSWER);
        cut.evaluate("mark => mark.scrollIntoView({ block: 'center' })"); // for the screenshots: the mark and both sides of it
    }

    private static String question(int turn) {
        return "Question " + turn + ": what do the notes say about grinding?";
    }
}
