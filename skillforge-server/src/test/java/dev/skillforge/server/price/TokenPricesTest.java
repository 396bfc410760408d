package dev.skillforge.server.price;

import dev.skillforge.core.agent.Usage;
import org.junit.jupiter.api.Test;

import java.util.OptionalDouble;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** What a call costs: plain input, cache reads, cache writes and output, each at its own price; unknown where the figures do not say. */
class TokenPricesTest {

    private static final TokenPrices SONNET_5_5 = new TokenPrices(2.00, 0.20, 2.50, 10.00);
    private static final TokenPrices NO_WRITE_FEE = new TokenPrices(0.15, 0.075, 0.15, 0.60);

    @Test
    void anAnthropicCallPaysPlainInputReadsWritesAndOutputEachAtItsPrice() {
        // 10,000 prompt tokens: 6,000 read, 3,000 written, 1,000 plain; 500 output
        OptionalDouble cost = SONNET_5_5.cost(new Usage(10_000L, 500L, 6_000L, 3_000L));

        assertThat(cost).isPresent();
        assertThat(cost.getAsDouble()).isCloseTo((1_000 * 2.00 + 6_000 * 0.20 + 3_000 * 2.50 + 500 * 10.00) / 1e6, within(1e-12));
        assertThat(cost.getAsDouble()).isCloseTo(0.0157, within(1e-12));
    }

    @Test
    void anUnknownWriteCountCostsNothingExtraWhereWritesArePricedLikeInputAndIsUnknownElsewhere() {
        Usage openAi = new Usage(2_000L, 100L, 1_024L); // cache writes not reported

        assertThat(NO_WRITE_FEE.cost(openAi).getAsDouble()).isCloseTo((976 * 0.15 + 1_024 * 0.075 + 100 * 0.60) / 1e6, within(1e-12));
        assertThat(SONNET_5_5.cost(openAi)).isEmpty();
    }

    @Test
    void unknownInputOrOutputOrAnUnknownReadCountOfADiscountedCacheMakeTheCostUnknown() {
        assertThat(SONNET_5_5.cost(Usage.UNKNOWN)).isEmpty();
        assertThat(SONNET_5_5.cost(new Usage(100L, null, 0L, 0L))).isEmpty();
        assertThat(NO_WRITE_FEE.cost(new Usage(100L, 10L, null, null))).isEmpty();
    }

    @Test
    void figuresThatContradictEachOtherPriceNothing() {
        assertThat(SONNET_5_5.cost(new Usage(100L, 10L, 80L, 40L))).isEmpty();
    }

    @Test
    void aNegativeOrNonNumericPriceIsRefusedNamingIt() {
        assertThatThrownBy(() -> new TokenPrices(1, -0.1, 1, 1)).hasMessageStartingWith("cachedInput must be a price");
        assertThatThrownBy(() -> new TokenPrices(Double.NaN, 0, 1, 1)).hasMessageStartingWith("input must be a price");
        assertThatThrownBy(() -> new TokenPrices(1, 0, 1, Double.POSITIVE_INFINITY)).hasMessageStartingWith("output must be a price");
    }
}
