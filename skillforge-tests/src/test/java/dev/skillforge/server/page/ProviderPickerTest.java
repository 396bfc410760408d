package dev.skillforge.server.page;

import com.fasterxml.jackson.databind.JsonNode;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.options.ColorScheme;
import com.microsoft.playwright.options.SelectOption;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.server.provider.sim.SimProviderServer;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.server.provider.sim.SimRequest;
import dev.skillforge.testkit.SimScript;
import org.junit.jupiter.api.Test;

import java.util.List;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/** The provider picker of a new chat: only with several providers; the choice fixes the conversation's provider. */
class ProviderPickerTest extends BrowserTest {

    @Test
    void choosingAnotherProviderCreatesTheConversationThereAndTheHeaderShowsIt() throws Exception {
        start(new SimScript(SimReply.of("Answered by the other one."), SimReply.of("Answered by the default.")));
        open("/");

        // Both providers, the default preselected, each with its model and marked simulated.
        Locator select = page.locator("#provider-select");
        assertThat(page.locator("#provider-picker")).isVisible();
        assertThat(page.getByLabel("Provider for this chat")).hasCount(1);
        assertThat(select.locator("option")).hasText(new String[] {
                "sim · " + SimProviderServer.MODEL + " (simulated)",
                ServerHarness.OTHER_PROVIDER + " · " + ServerHarness.OTHER_MODEL + " (simulated)"});
        assertThat(select).hasValue("sim");
        assertThat(page.locator("#provider")).hasText("sim · " + SimProviderServer.MODEL + " · simulated");
        assertThat(page.locator("#provider-note")).containsText("not a real model");

        // A native <select>: the browser makes it keyboard-usable; the test only chooses.
        select.selectOption(ServerHarness.OTHER_PROVIDER);
        assertThat(select).hasValue(ServerHarness.OTHER_PROVIDER);
        assertThat(page.locator("#provider")).hasText(ServerHarness.OTHER_PROVIDER + " · " + ServerHarness.OTHER_MODEL + " · simulated");
        screenshot("choosingAnotherProviderCreatesTheConversationThereAndTheHeaderShowsIt-picker");

        sendMessage("Who answers?");
        Locator turn = awaitEnd(turns().first());
        assertThat(turn.locator(".iteration .content")).hasText("Answered by the other one.");
        String id = conversationId();
        JsonNode stored = conversation(id);
        assertThat(stored.path("provider").asText()).isEqualTo(ServerHarness.OTHER_PROVIDER);
        assertThat(stored.path("model").asText()).isEqualTo(ServerHarness.OTHER_MODEL);
        List<SimRequest> requests = server.sim.requests();
        assertThat(requests).isNotEmpty();
        assertThat(requests).allSatisfy(request -> assertThat(request.json().path("model").asText()).isEqualTo(ServerHarness.OTHER_MODEL));
        assertThat(page.locator("#provider")).hasText(ServerHarness.OTHER_PROVIDER + " · " + ServerHarness.OTHER_MODEL + " · simulated");
        assertThat(page.locator("#provider-picker")).isHidden();

        // A new chat offers the default again; its conversation goes there; switching back shows each one's provider.
        page.locator("#new-chat").click();
        assertThat(page.locator("#provider-picker")).isVisible();
        assertThat(select).hasValue("sim");
        assertThat(page.locator("#provider")).hasText("sim · " + SimProviderServer.MODEL + " · simulated");
        sendMessage("And now?");
        awaitEnd(turns().first());
        String second = conversationId();
        assertThat(conversation(second).path("provider").asText()).isEqualTo("sim");
        assertThat(server.sim.requests().getLast().json().path("model").asText()).isEqualTo(SimProviderServer.MODEL);

        page.locator(".conversation[data-id=\"" + id + "\"] .conversation-open").click();
        assertThat(turns().first().locator(".iteration .content")).hasText("Answered by the other one.");
        assertThat(page.locator("#provider")).hasText(ServerHarness.OTHER_PROVIDER + " · " + ServerHarness.OTHER_MODEL + " · simulated");
        page.reload();
        assertThat(page.locator("#provider")).hasText(ServerHarness.OTHER_PROVIDER + " · " + ServerHarness.OTHER_MODEL + " · simulated");
        assertThat(page.locator("#provider-picker")).isHidden();
    }

    @Test
    void thePickerFitsAPhoneInDark() throws Exception {
        start(new SimScript(SimReply.of("Small screen.")));
        open("/", 390, 844, ColorScheme.DARK);
        assertThat(page.locator("#provider-select")).isInViewport();
        assertThat(page.locator("#provider")).isVisible();
        assertThat((Boolean) page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")).isTrue();
        page.locator("#provider-select").selectOption(new SelectOption().setValue(ServerHarness.OTHER_PROVIDER));
        assertThat(page.locator("#provider")).containsText(ServerHarness.OTHER_PROVIDER);
    }

    @Test
    void withOneProviderThereIsNoPickerAndTheLabelIsAsBefore() throws Exception {
        startWithOneProvider(new SimScript(SimReply.of("Only one.")));
        open("/");
        assertThat(page.locator("#provider")).hasText("Simulated provider · offline demo");
        assertThat(page.locator("#sim-notice")).isVisible();
        assertThat(page.locator("#provider-picker")).isHidden();
        sendMessage("Hello");
        awaitEnd(turns().first());
        assertThat(conversation(conversationId()).path("provider").asText()).isEqualTo("sim");
        assertThat(page.locator("#provider")).hasText("Simulated provider · offline demo");
        page.locator("#new-chat").click();
        assertThat(page.locator("#provider-picker")).isHidden();
    }
}
