package dev.skillforge.server.page;

import com.fasterxml.jackson.databind.JsonNode;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.options.FilePayload;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.testkit.SimScript;
import dev.skillforge.testkit.TestDocuments;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/** Attachments in the page: the picker, a drop, a long paste, the chips with their preview, a reload. */
class AttachmentsPageTest extends BrowserTest {

    private static final String SKILL = "Saving it.\n\n<shell>skill set pour-over\n---\nname: pour-over\ndescription: Brew pour-over coffee.\n"
            + "---\n# Pour-over\n\nBloom for 30 seconds.\n</shell>";

    @Test
    void aPdfPickedAndAFileDroppedAreSentAsChipsTheModelReadsAndTheTurnWritesASkill() throws Exception {
        start(new SimScript(SimReply.of(SKILL), SimReply.of("Saved the pour-over skill.")));
        open("/");
        byte[] pdf = TestDocuments.pdf("Pour-over guide\nBloom for 30 seconds.");

        page.locator("#file-input").setInputFiles(new FilePayload("guide.pdf", "application/pdf", pdf));
        drop("notes.md", "text/markdown", "# Notes\n\nUse a gooseneck kettle.\n");

        Locator pending = page.locator("#pending-attachments .attachment-chip");
        assertThat(pending).hasCount(2);
        assertThat(pending.nth(0)).containsText("guide.pdf");
        assertThat(pending.nth(1)).containsText("notes.md");
        assertThat(pending.nth(1)).containsText("markdown");

        sendMessage("Turn this into a skill");
        Locator turn = awaitEnd(turns().first());

        assertThat(turn).hasAttribute("data-status", "complete");
        assertThat(page.locator("#pending-attachments")).isHidden();
        assertThat(turn.locator(".attachment-chip")).hasCount(2);
        String seen = server.sim.requests().getFirst().messages().get(1).path("content").asText();
        assertThat(seen).contains("<document name=\"guide.pdf\" type=\"application/pdf\">\nPour-over guide\nBloom for 30 seconds.\n</document>")
                .contains("Use a gooseneck kettle.").endsWith("Turn this into a skill");
        assertThat(server.skills.get("pour-over")).isPresent();

        page.reload();
        assertThat(page.locator("body[data-ready=true]")).hasCount(1);
        Locator chips = turns().first().locator(".attachment-chip");
        assertThat(chips).hasCount(2);
        assertThat(chips.nth(0)).containsText("guide.pdf");
        chips.nth(0).locator(".chip-open").click();
        Locator preview = page.locator("dialog.attachment-preview");
        assertThat(preview).isVisible();
        assertThat(preview.locator(".preview-body")).containsText("Bloom for 30 seconds.");
        assertThat(preview.locator("a.button")).hasAttribute("href", java.util.regex.Pattern.compile("/attachments/[0-9a-f]{64}$"));
        screenshot("attachment-preview");
    }

    @Test
    void aLongPasteBecomesAChipAndAShortOneStaysText() throws Exception {
        start(new SimScript(SimReply.of("Got your document.")));
        open("/");
        String document = "Step %d: rinse, grind, bloom, pour slowly in circles.\n".repeat(80).formatted(
                java.util.stream.IntStream.rangeClosed(1, 80).boxed().toArray());

        paste("short text");
        paste(document);

        assertThat(page.locator("#input")).hasValue("short text");
        Locator pending = page.locator("#pending-attachments .attachment-chip");
        assertThat(pending).hasCount(1);
        assertThat(pending).containsText("pasted-1.txt");
        pending.locator(".chip-open").click();
        assertThat(page.locator("dialog.attachment-preview .preview-body")).containsText("Step 80: rinse");
        page.locator("dialog.attachment-preview button[aria-label='Close preview']").click();

        page.locator("#input").press("Enter");
        Locator turn = awaitEnd(turns().first());
        assertThat(turn.locator(".bubble.user-text")).hasText("short text");
        assertThat(turn.locator(".bubble.user-text").boundingBox().height).as("the document is a chip, not a tall bubble").isLessThan(80);
        JsonNode entry = conversation(conversationId()).path("entries").get(0);
        assertThat(entry.path("content").asText()).isEqualTo("short text");
        assertThat(entry.path("attachments").get(0).path("name").asText()).isEqualTo("pasted-1.txt");
        assertThat(server.sim.requests().getFirst().messages().get(1).path("content").asText()).contains("Step 80: rinse");
    }

    @Test
    void aFileTheServerRefusesIsAClearErrorAndTheChipCanBeRemoved() throws Exception {
        start(new SimScript(SimReply.of("unused")));
        open("/");

        page.locator("#file-input").setInputFiles(new FilePayload("photo.png", "image/png", new byte[]{(byte) 0x89, 'P', 'N', 'G'}));
        page.locator("#file-input").setInputFiles(new FilePayload("extra.txt", "text/plain", "x".getBytes(StandardCharsets.UTF_8)));
        Locator pending = page.locator("#pending-attachments .attachment-chip");
        assertThat(pending).hasCount(2);
        pending.nth(1).locator(".chip-remove").click();
        assertThat(pending).hasCount(1);

        sendMessage("What is this?");
        Locator turn = turns().first();
        assertThat(turn.locator(".turn-error")).containsText("but its bytes are not a PNG, JPEG, WebP or GIF image");
        assertThat(server.sim.requests()).isEmpty();
    }

    /** Drops a file on the chat as a person dragging it from their desktop would. */
    private void drop(String name, String type, String text) {
        page.evaluate("""
                ([name, type, b64]) => {
                  const bytes = Uint8Array.from(atob(b64), c => c.charCodeAt(0));
                  const transfer = new DataTransfer();
                  transfer.items.add(new File([bytes], name, { type }));
                  const chat = document.getElementById('chat');
                  chat.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
                  chat.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
                }""", java.util.List.of(name, type, Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8))));
    }

    /** Pastes text into the message box as the clipboard would. */
    private void paste(String text) {
        page.locator("#input").focus();
        page.evaluate("""
                text => {
                  const transfer = new DataTransfer();
                  transfer.setData('text/plain', text);
                  const input = document.getElementById('input');
                  const event = new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true });
                  if (input.dispatchEvent(event)) {
                    input.setRangeText(text, input.selectionStart, input.selectionEnd, 'end'); // what the browser does unless prevented
                  }
                }""", text);
    }
}
