package dev.skillforge.server.price;

import dev.skillforge.server.provider.ProviderPreset;
import org.junit.jupiter.api.Test;

import java.time.LocalDate;
import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The bundled price table: every figure with its source and date; the models SkillForge defaults to; its format checked. */
class PriceTableTest {

    @Test
    void everyEntrySaysWhereItsFiguresComeFromAndWhenTheyWereReadAndNamesAModelOnce() {
        Set<String> seen = new HashSet<>();
        for (PriceTable.Entry entry : PriceTable.bundled().entries()) {
            String what = entry.provider() + " " + entry.model();
            assertThat(seen.add(what)).as(what + " is in the table once").isTrue();
            assertThat(entry.source()).as(what).startsWith("https://");
            assertThat(LocalDate.parse(entry.checked())).as(what).isBeforeOrEqualTo(LocalDate.of(2026, 11, 23));
            assertThat(ProviderPreset.parse(entry.provider(), "provider")).as(what).isNotNull();
            if (!entry.verified()) {
                assertThat(entry.note()).as(what + ": figures not read on the vendor's page say where they come from").isNotBlank();
            }
            assertThat(entry.prices().cachedInput()).as(what + ": a cache read costs no more than plain input")
                    .isLessThanOrEqualTo(entry.prices().input());
        }
    }

    @Test
    void theAnthropicDefaultModelIsPricedAsAnthropicsPageSaysWithBothWritePrices() {
        PriceTable.Entry sonnet = PriceTable.bundled().find("anthropic", ProviderPreset.ANTHROPIC.defaultModel()).orElseThrow();

        assertThat(sonnet.prices()).isEqualTo(new TokenPrices(2.00, 0.20, 2.50, 10.00));
        assertThat(sonnet.withHourLongWrites()).isEqualTo(new TokenPrices(2.00, 0.20, 4.00, 10.00));
        assertThat(sonnet.verified()).isTrue();
        // Anthropic's multipliers: 5-minute writes 1.25x, 1-hour writes 2x, reads 0.1x
        assertThat(sonnet.prices().cacheWrite()).isEqualTo(1.25 * sonnet.prices().input());
        assertThat(sonnet.cacheWrite1h()).isEqualTo(2 * sonnet.prices().input());
        assertThat(sonnet.prices().cachedInput()).isEqualTo(0.1 * sonnet.prices().input());
    }

    @Test
    void theDefaultModelsOfTheCacheBenchmarksRulesArePriced() {
        assertThat(PriceTable.bundled().find("openai", ProviderPreset.OPENAI.defaultModel())).isPresent();
        assertThat(PriceTable.bundled().find("gemini", ProviderPreset.GEMINI.defaultModel())).isPresent();
        assertThat(PriceTable.bundled().find("deepseek", ProviderPreset.DEEPSEEK.defaultModel())).isPresent();
        assertThat(PriceTable.bundled().find("anthropic", "no-such-model")).isEmpty();
    }

    @Test
    void aTableWithAMissingOrWrongFigureIsRefusedNamingIt() {
        assertThatThrownBy(() -> PriceTable.parse("{\"prices\": [{\"provider\": \"anthropic\", \"model\": \"m\", \"input\": 1,"
                + " \"cachedInput\": 0.1, \"cacheWrite\": \"1.25\", \"output\": 5, \"source\": \"https://x\", \"checked\": \"2026-11-23\"}]}"))
                .hasMessageStartingWith("prices[0].cacheWrite must be a price");
        assertThatThrownBy(() -> PriceTable.parse("{\"prices\": [{\"provider\": \"anthropic\", \"model\": \"m\", \"input\": 1,"
                + " \"cachedInput\": 0.1, \"cacheWrite\": 1.25, \"output\": 5, \"checked\": \"2026-11-23\"}]}"))
                .hasMessage("prices[0].source is required");
        assertThatThrownBy(() -> PriceTable.parse("{\"prices\": []}")).hasMessage("the price table has no prices");
    }
}
