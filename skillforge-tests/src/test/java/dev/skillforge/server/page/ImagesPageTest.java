package dev.skillforge.server.page;

import com.fasterxml.jackson.databind.JsonNode;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.options.FilePayload;
import dev.skillforge.server.provider.sim.SimProviderServer;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.testkit.SimScript;
import dev.skillforge.testkit.TestImages;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Images in the page: picked, dropped and pasted from the clipboard, shown as thumbnails before and after sending and
 * after a reload, previewed, sent natively; and refused when picked for a model that does not see, with the reason.
 */
class ImagesPageTest extends BrowserTest {

    private static final ServerHarness.SimProvider SEEING = ServerHarness.SimProvider.openAi("sim", SimProviderServer.MODEL, 131_072);
    private static final ServerHarness.SimProvider BLIND = ServerHarness.SimProvider.openAi("text", "text-only-1", 131_072).blind();

    @Test
    void anImagePickedOneDroppedAndOnePastedAreSentAsThumbnailsTheModelSees() throws Exception {
        start(new SimScript(SimReply.of("Three pictures: a chart, a photo and a sketch.")));
        open("/");
        byte[] png = TestImages.png(64, 48);
        byte[] jpeg = TestImages.jpeg(40, 30);
        byte[] gif = TestImages.gif(20, 20);

        page.locator("#file-input").setInputFiles(new FilePayload("chart.png", "image/png", png));
        transfer("drop", "photo.jpg", "image/jpeg", jpeg);
        transfer("paste", "image.gif", "image/gif", gif);

        Locator pending = page.locator("#pending-attachments .attachment-chip");
        assertThat(pending).hasCount(3);
        assertThat(pending.nth(0)).containsText("chart.png");
        assertThat(pending.nth(0)).containsText("64×48");
        assertThat(pending.nth(1)).containsText("photo.jpg");
        assertThat(pending.nth(2)).containsText("pasted-1.gif");
        assertThat(page.locator("#input")).hasValue(""); // the pasted image is a chip, not text
        assertThumbnailsShown(pending, 3);
        assertAccessible(page, "images waiting to be sent");

        sendMessage("What do these show?");
        Locator turn = awaitEnd(turns().first());
        assertThat(turn).hasAttribute("data-status", "complete");
        assertThumbnailsShown(turn.locator(".attachment-chip"), 3);

        JsonNode content = server.sim.requests().getFirst().messages().get(1).path("content");
        assertThat(content).hasSize(4);
        assertThat(content.get(0).path("image_url").path("url").asText()).isEqualTo("data:image/png;base64," + base64(png));
        assertThat(content.get(1).path("image_url").path("url").asText()).isEqualTo("data:image/jpeg;base64," + base64(jpeg));
        assertThat(content.get(2).path("image_url").path("url").asText()).isEqualTo("data:image/gif;base64," + base64(gif));
        assertThat(content.get(3).path("text").asText()).isEqualTo("What do these show?");

        page.reload();
        assertThat(page.locator("body[data-ready=true]")).hasCount(1);
        Locator stored = turns().first().locator(".attachment-chip");
        assertThat(stored).hasCount(3);
        assertThat(stored.nth(0)).containsText("64×48");
        assertThat(stored.nth(0).locator("img.chip-thumb")).hasAttribute("src",
                java.util.regex.Pattern.compile("^/api/conversations/[^/]+/attachments/[0-9a-f]{64}$"));
        assertThumbnailsShown(stored, 3);
        screenshot("images-sent");
        assertAccessible(page, "a message with images");

        stored.nth(0).locator(".chip-open").click();
        Locator preview = page.locator("dialog.attachment-preview");
        assertThat(preview.locator("img.preview-image")).isVisible();
        assertThat(preview.locator("img.preview-image")).hasAttribute("alt", "chart.png");
        assertThat(preview.locator(".preview-body")).isHidden();
        assertThat((Boolean) page.evaluate("() => document.querySelector('img.preview-image').naturalWidth === 64")).isTrue();
        screenshot("image-preview");
        assertAccessible(page, "image preview");
    }

    @Test
    void aModelThatDoesNotSeeRefusesAnImageWhenItIsPickedAndSaysWhy() throws Exception {
        start(new SimScript(SimReply.of("Read your notes.")), List.of(BLIND, SEEING));
        open("/");
        byte[] png = TestImages.png(32, 32);

        page.locator("#file-input").setInputFiles(new FilePayload("screenshot.png", "image/png", png));

        Locator toast = page.locator("#toast");
        assertThat(toast).isVisible();
        assertThat(toast).hasText("The model text-only-1 does not see images, so screenshot.png cannot be sent to it. "
                + "Describe it in words, or start a new chat with a provider whose model sees images.");
        Locator pending = page.locator("#pending-attachments .attachment-chip");
        assertThat(pending).hasCount(0);
        screenshot("image-refused");
        assertAccessible(page, "an image refused at pick time");

        transfer("drop", "dropped.png", "image/png", png);
        transfer("paste", "image.png", "image/png", png);
        assertThat(pending).hasCount(0);
        assertThat(toast).containsText("does not see images");

        page.locator("#file-input").setInputFiles(new FilePayload("notes.md", "text/markdown", "# Notes".getBytes(StandardCharsets.UTF_8)));
        assertThat(pending).hasCount(1); // a document is still taken

        // A provider whose model sees takes it; going back to the one that does not takes it off again, saying why.
        page.locator("#provider-select").selectOption("sim");
        page.locator("#file-input").setInputFiles(new FilePayload("screenshot.png", "image/png", png));
        assertThat(pending).hasCount(2);
        page.locator("#provider-select").selectOption("text");
        assertThat(pending).hasCount(1);
        assertThat(toast).containsText("The model text-only-1 does not see images, so screenshot.png cannot be sent to it.");

        sendMessage("Summarise my notes");
        assertThat(awaitEnd(turns().first())).hasAttribute("data-status", "complete");
        assertThat(server.sim.requests()).hasSize(1);
        assertThat(server.sim.requests().getFirst().messages().get(1).path("content").isTextual()).as("no image reached the model").isTrue();
    }

    /** Every chip in {@code chips} shows a decoded thumbnail. */
    private void assertThumbnailsShown(Locator chips, int count) {
        assertThat(chips.locator("img.chip-thumb")).hasCount(count);
        for (int i = 0; i < count; i++) {
            Locator thumb = chips.nth(i).locator("img.chip-thumb");
            page.waitForCondition(() -> (Boolean) thumb.evaluate("img => img.complete && img.naturalWidth > 0"));
        }
    }

    /** Drops a file on the chat, or pastes it into the message box, as the browser does for a desktop file or a screenshot. */
    private void transfer(String how, String name, String type, byte[] data) {
        page.locator("#input").focus();
        page.evaluate("""
                ([how, name, type, b64]) => {
                  const bytes = Uint8Array.from(atob(b64), c => c.charCodeAt(0));
                  const transfer = new DataTransfer();
                  transfer.items.add(new File([bytes], name, { type }));
                  if (how === 'paste') {
                    const input = document.getElementById('input');
                    input.dispatchEvent(new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true }));
                    return;
                  }
                  const chat = document.getElementById('chat');
                  chat.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
                  chat.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
                }""", List.of(how, name, type, base64(data)));
    }

    private static String base64(byte[] data) {
        return Base64.getEncoder().encodeToString(data);
    }
}
