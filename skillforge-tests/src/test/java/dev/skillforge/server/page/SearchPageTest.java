package dev.skillforge.server.page;

import com.microsoft.playwright.Locator;
import com.microsoft.playwright.options.ColorScheme;
import com.microsoft.playwright.options.FilePayload;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.testkit.SimScript;
import dev.skillforge.testkit.TestDocuments;
import org.junit.jupiter.api.Test;

import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Search that shows where, in the page: a result shows the passage with the words marked, a word only in an
 * attached PDF finds its chat, and opening a result scrolls the chat to the message it came from.
 */
class SearchPageTest extends BrowserTest {

    /** An answer tall enough that three of them push the first turn out of sight. */
    private static String longAnswer(int turn) {
        return IntStream.rangeClosed(1, 25).mapToObj(i -> "Step " + i + " of plan " + turn + ": keep going.")
                .collect(Collectors.joining("\n\n"));
    }

    @Test
    void aResultShowsThePassageWithTheWordMarkedADocumentsWordFindsItsChatAndOpeningAResultScrollsToIt() throws Exception {
        start(new SimScript(SimReply.of("Seville oranges make the best marmalade: bitter, with plenty of pectin."),
                SimReply.of(longAnswer(1)), SimReply.of(longAnswer(2)), SimReply.of(longAnswer(3)),
                SimReply.of("It lists the figures by quarter."), SimReply.of("Counting.\n\n<shell>echo wombat-census 42</shell>"),
                SimReply.of("There are 42.")));
        open("/");
        sendMessage("Which oranges for preserves?");
        awaitEnd(turns().first());
        String preserves = conversationId();
        for (int turn = 1; turn <= 3; turn++) {
            sendMessage("And then, part " + turn + "?");
            awaitEnd(turns().nth(turn));
        }

        // A second chat whose one unusual word is only in an attached PDF.
        page.keyboard().press("Control+Shift+O");
        page.locator("#file-input").setInputFiles(new FilePayload("figures.pdf", "application/pdf",
                TestDocuments.pdf("Quarterly figures\nThe zeppelin budget rose by twelve percent.")));
        sendMessage("Summarise the attachment");
        awaitEnd(turns().first());
        String figures = conversationId();

        // The document's word finds its chat; the passage is the document's, the word marked.
        page.keyboard().press("Control+k");
        Locator search = page.locator("#search");
        search.pressSequentially("zeppelin");
        Locator rows = page.locator(".conversation");
        Locator documentSnippet = onlyResult(rows, figures, "📎 figures.pdf", "zeppelin");
        assertThat(documentSnippet.locator(".search-snippet-text")).containsText("The zeppelin budget rose");

        // A word in the first answer of the long chat: its passage, marked; opening it scrolls up to that answer.
        search.fill("marmalade");
        Locator snippet = onlyResult(rows, preserves, "Answer", "marmalade");
        assertThat(snippet.locator(".search-snippet-text")).hasText("Seville oranges make the best marmalade: bitter, with plenty of pectin.");
        assertAccessible(page, "search results with marked passages");
        screenshot("searchResults");

        snippet.click();
        assertThat(page).hasURL(java.util.regex.Pattern.compile("#/c/" + preserves + "$"));
        assertThat(turns()).hasCount(4);
        Locator target = page.locator("#turns .search-target");
        assertThat(target).hasCount(1);
        assertThat(target).hasAttribute("data-iteration", "0");
        assertThat(target.locator("mark")).hasText("marmalade");
        assertThat(target.locator("mark")).isInViewport();
        assertThat(turns().last().locator(".iteration").last()).not().isInViewport(); // not the chat's end, where it usually opens
        assertThat(turns().first().locator(".search-target")).hasCount(1);
        assertAccessible(page, "a chat opened at a search result");
        screenshot("searchOpenedAtResult");

        // Command output: its passage says so; opening it opens the command, the word marked there.
        page.keyboard().press("Control+Shift+O");
        sendMessage("How many are there?");
        awaitEnd(turns().first());
        search.fill("census");
        Locator output = rows.first().locator(".search-snippet[data-kind=tool]");
        assertThat(output.locator(".search-snippet-kind")).hasText("Command output");
        assertThat(output.locator("mark")).hasText("census");
        output.click();
        Locator command = page.locator("#turns details.command.search-target");
        assertThat(command).hasAttribute("open", "");
        assertThat(command.locator("mark")).hasText("census"); // the output's first line repeats the command (echo is refused here)
        assertThat(command.locator("mark")).isInViewport();

        // Opening the document's result: the chat's chip, scrolled into view.
        search.fill("zeppelin");
        assertThat(rows.first()).hasAttribute("data-id", figures);
        rows.first().locator(".search-snippet").click();
        assertThat(page).hasURL(java.util.regex.Pattern.compile("#/c/" + figures + "$"));
        Locator chip = page.locator("#turns .attachment-chip.search-target");
        assertThat(chip).containsText("figures.pdf");
        assertThat(chip).isInViewport();

        // The dark scheme's marks stay readable (axe checks their contrast).
        search.fill("marmalade");
        assertThat(rows.first().locator("mark")).hasText("marmalade");
        page.emulateMedia(new com.microsoft.playwright.Page.EmulateMediaOptions().setColorScheme(ColorScheme.DARK));
        assertAccessible(page, "search results in the dark scheme");
        assertThat(page.locator("#conversation-list mark").count()).isGreaterThanOrEqualTo(1);
    }

    /** The one row found, chat {@code id}, and its one passage: labelled {@code kind}, {@code word} marked in it. */
    private static Locator onlyResult(Locator rows, String id, String kind, String word) {
        assertThat(rows).hasCount(1);
        assertThat(rows.first()).hasAttribute("data-id", id);
        Locator snippet = rows.first().locator(".search-snippet");
        assertThat(snippet).hasCount(1);
        assertThat(snippet.locator(".search-snippet-kind")).hasText(kind);
        assertThat(snippet.locator("mark")).hasText(word);
        return snippet;
    }
}
