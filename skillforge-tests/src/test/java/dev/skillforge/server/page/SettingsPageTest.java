package dev.skillforge.server.page;

import com.fasterxml.jackson.databind.JsonNode;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.testkit.SimScript;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The settings dialog: a default provider, a theme and instructions saved on the server (they follow the person to
 * another browser), applied to the chats started afterwards and never to one already started; this chat's provider
 * shown as fixed, with a new chat on another one a click away; the keyboard shortcuts behind {@code ?}.
 */
class SettingsPageTest extends BrowserTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void whatAPersonChoosesStartsTheirNextChatsAndFollowsThemToAnotherBrowser() throws Exception {
        start(new SimScript(SimReply.of("Old pond, frog jumps in."), SimReply.of("A plain answer."), SimReply.of("Still haiku.")));
        open("/");
        page.locator("#open-settings").click();
        Locator dialog = page.locator("#settings-dialog");
        assertThat(dialog).isVisible();
        assertThat(page.locator("#settings-chat")).isHidden(); // a new chat: its picker is on the page
        assertThat(page.locator("#settings-default-provider option")).hasCount(3);
        page.locator("#settings-default-provider").selectOption(ServerHarness.OTHER_PROVIDER);
        page.locator("#settings-form input[name=theme][value=dark]").check();
        page.locator("#settings-instructions").fill("Always answer in haiku.");
        assertThat(page.locator("#settings-instructions-count")).hasText("23 / 4000");
        assertAccessible(page, "the settings dialog");
        page.locator("#settings-form button[type=submit]").click();
        assertThat(page.locator("#settings-status")).containsText("Saved.");
        assertThat(page.locator("html")).hasAttribute("data-theme", "dark");
        screenshot("settingsSaved");
        page.locator("#close-settings").click();

        // The next chat starts on the chosen provider, with the instructions after SkillForge's own prompt.
        assertThat(page.locator("#provider")).containsText(ServerHarness.OTHER_MODEL);
        sendMessage("Tell me about ponds");
        awaitEnd(turns().first());
        String first = conversationId();
        assertThat(conversation(first).path("provider").asText()).isEqualTo(ServerHarness.OTHER_PROVIDER);
        String firstPrompt = systemPrompt(0);
        assertThat(firstPrompt).startsWith("You are SkillForge").endsWith("Always answer in haiku.\n");

        // This chat's provider is fixed; a new chat on the other is one click.
        page.locator("#open-settings").click();
        assertThat(page.locator("#settings-chat-current")).hasText(ServerHarness.OTHER_PROVIDER + " · " + ServerHarness.OTHER_MODEL);
        page.locator("#settings-chat-provider").selectOption("sim");
        page.locator("#settings-new-chat").click();
        assertThat(dialog).isHidden();
        assertThat(page.locator("#empty-state")).isVisible();
        assertThat(page.locator("#provider-select")).hasValue("sim");

        // New instructions start the next chats only: the first chat's next request keeps the prompt it began with.
        page.locator("#open-settings").click();
        page.locator("#settings-instructions").fill("Answer in prose.");
        page.locator("#settings-form button[type=submit]").click();
        assertThat(page.locator("#settings-status")).containsText("Saved.");
        page.locator("#close-settings").click();
        sendMessage("And now?");
        awaitEnd(turns().first());
        assertThat(conversation(conversationId()).path("provider").asText()).isEqualTo("sim");
        assertThat(systemPrompt(1)).endsWith("Answer in prose.\n");
        page.navigate(server.url("/#/c/" + first)); // a change of the address's hash: the page switches, it does not reload
        assertThat(turns()).hasCount(1);
        assertThat(turns().first()).containsText("Tell me about ponds"); // the first chat shown, not the one before
        assertThat(page.locator("#provider")).containsText(ServerHarness.OTHER_MODEL);
        sendMessage("One more");
        awaitEnd(turns().nth(1));
        assertThat(systemPrompt(2)).isEqualTo(firstPrompt);

        // ? shows the shortcuts (not while typing); Escape closes them.
        page.locator("#messages").focus();
        page.keyboard().press("?");
        assertThat(page.locator("#shortcuts-dialog")).isVisible();
        assertThat(page.locator("#shortcuts-dialog")).containsText("Search the chats");
        assertAccessible(page, "the keyboard shortcuts");
        page.keyboard().press("Escape");
        assertThat(page.locator("#shortcuts-dialog")).isHidden();
        page.locator("#input").focus();
        page.keyboard().press("?");
        assertThat(page.locator("#input")).hasValue("?");
        assertThat(page.locator("#shortcuts-dialog")).isHidden();

        // Another browser (nothing in its storage) shows the person's theme from the server.
        BrowserContext other = browser.newContext();
        try {
            Page elsewhere = other.newPage();
            elsewhere.navigate(server.url("/"));
            assertThat(elsewhere.locator("html")).hasAttribute("data-theme", "dark");
            assertThat(elsewhere.locator("#provider-select")).hasValue(ServerHarness.OTHER_PROVIDER);
        } finally {
            other.close();
        }
    }

    @Test
    void settingsTheServerCannotKeepAreRefusedSayingWhyAndChangeNothing() throws Exception {
        start(new SimScript());
        assertThat(put("{\"defaultProvider\":null,\"theme\":\"light\",\"instructions\":\"Be brief.\"}").statusCode()).isEqualTo(200);
        String kept = get();

        assertRefused("{\"defaultProvider\":\"gpt-9\",\"theme\":\"light\",\"instructions\":\"\"}",
                "'defaultProvider' must be one of this server's providers (sim, other) or null, not 'gpt-9'");
        assertRefused("{\"defaultProvider\":null,\"theme\":\"blue\",\"instructions\":\"\"}", "'theme' must be auto, light or dark, not 'blue'");
        assertRefused("{\"defaultProvider\":null,\"theme\":\"dark\",\"instructions\":\"" + "x".repeat(4001) + "\"}",
                "'instructions' are 4001 characters; the limit is 4000");
        assertRefused("{\"defaultProvider\":null,\"theme\":\"dark\",\"instructions\":\"a\\u0000b\"}", "control character (U+0000)");
        assertRefused("{\"theme\":\"dark\",\"instructions\":\"\"}", "'defaultProvider' is missing");
        assertRefused("{\"defaultProvider\":null,\"theme\":\"dark\",\"instructions\":7}", "'instructions' must be a string");
        assertRefused("{\"defaultProvider\":null,\"theme\":\"dark\",\"instructions\":\"\",\"colour\":\"red\"}", "Unknown field 'colour'");
        assertRefused("[1,2]", "");
        assertThat(get()).isEqualTo(kept);
    }

    private void assertRefused(String body, String message) throws Exception {
        HttpResponse<String> answer = put(body);
        assertThat(answer.statusCode()).as(body).isEqualTo(400);
        assertThat(Json.parse(answer.body()).path("error").path("message").asText()).contains(message);
    }

    private HttpResponse<String> put(String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(server.url("/api/me/settings"))).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private String get() throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(server.url("/api/me/settings"))).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    /** The system message of the {@code index}th request the provider received. */
    private String systemPrompt(int index) {
        JsonNode messages = server.sim.requests().get(index).messages();
        assertThat(messages.get(0).path("role").asText()).isEqualTo("system");
        return messages.get(0).path("content").asText();
    }
}
