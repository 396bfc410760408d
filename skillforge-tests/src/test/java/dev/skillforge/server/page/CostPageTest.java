package dev.skillforge.server.page;

import com.fasterxml.jackson.databind.JsonNode;
import com.microsoft.playwright.Locator;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.server.price.TokenPrices;
import dev.skillforge.server.provider.sim.SimProviderServer;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.testkit.SimScript;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Locale;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a conversation costs, on the page: each turn's cost and the conversation's under the answers and in the top
 * bar, with the tokens written to the cache beside the cached share; "cost unknown" where the model's prices are not
 * known. The dollars are the server's (GET /api/conversations/{id}), shown live and after a reload alike.
 */
class CostPageTest extends BrowserTest {

    private static final TokenPrices SONNET_5_5 = new TokenPrices(2.00, 0.20, 2.50, 10.00);
    /** A long first message: the simulated Anthropic model caches prompts of 1,024 tokens and more. */
    private static final String LONG_MESSAGE = "Learn these notes. " + "Sourdough wants a lively starter and a long cold proof. ".repeat(90);

    @Test
    void eachTurnAndTheConversationShowTheirCostAndCacheWritesAndAnUnpricedModelSaysUnknown() throws Exception {
        start(new SimScript(SimReply.of("Noted.").withReasoning("Short notes."), SimReply.of("Anything else?"), SimReply.of("Unpriced.")),
                List.of(ServerHarness.SimProvider.anthropic("claude", SimProviderServer.MODEL, 1_000_000, SONNET_5_5),
                        ServerHarness.SimProvider.anthropic("unpriced", "unpriced-model", 1_000_000, null)));
        open("/");

        sendMessage(LONG_MESSAGE);
        Locator first = awaitEnd(turns().nth(0));
        sendMessage("Thanks");
        Locator second = awaitEnd(turns().nth(1));

        JsonNode stored = conversation(conversationId());
        JsonNode turn1 = stored.path("turns").get(0).path("usage");
        JsonNode turn2 = stored.path("turns").get(1).path("usage");
        assertThat(turn1.path("cacheWriteTokens").asLong()).isPositive();
        assertThat(turn2.path("cacheReadTokens").asLong()).isPositive();
        assertThat(first.locator(".turn-meta .stats")).containsText("written " + String.format(Locale.ROOT, "%,d", turn1.path("cacheWriteTokens").asLong()));
        assertThat(first.locator(".turn-meta .cost")).hasText(dollars(turn1.path("costUsd").asDouble()));
        assertThat(second.locator(".turn-meta .cost")).hasText(dollars(turn2.path("costUsd").asDouble()));
        assertThat(page.locator("#conversation-usage")).containsText(dollars(stored.path("usage").path("costUsd").asDouble()));
        assertThat(page.locator("#conversation-usage")).containsText("written ");
        screenshot("eachTurnAndTheConversationShowTheirCost");

        // after a reload, the stored turns show the same figures
        page.reload();
        assertThat(turns().nth(1).locator(".turn-meta .cost")).hasText(dollars(turn2.path("costUsd").asDouble()));
        assertThat(turns().nth(0).locator(".turn-meta .stats")).containsText("written ");

        // a model without known prices: the cost is unknown, not $0
        page.locator("#new-chat").click();
        page.locator("#provider-select").selectOption("unpriced");
        sendMessage("Hello");
        Locator unpriced = awaitEnd(turns().first());
        assertThat(unpriced.locator(".turn-meta .cost")).hasText("cost unknown");
        assertThat(page.locator("#conversation-usage")).containsText("cost unknown");
    }

    /** As the page writes dollars: four decimals under a dollar. */
    private static String dollars(double amount) {
        return "$" + String.format(Locale.ROOT, amount < 1 ? "%.4f" : "%.2f", amount);
    }
}
