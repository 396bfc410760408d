package dev.skillforge.server.cache;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The simulated providers' documented cache rules, at their edges. */
class CacheRuleTest {

    @Test
    void deepSeekCachesNothingOfAPrefixShorterThanOneUnitOf64Tokens() {
        assertThat(CacheRule.DEEPSEEK.cachedTokens(0, 500)).isZero();
        assertThat(CacheRule.DEEPSEEK.cachedTokens(63, 500)).isZero();
        assertThat(CacheRule.DEEPSEEK.cachedTokens(63, 63)).isZero();
    }

    @Test
    void deepSeekHitsWholeUnitsOfTheSharedPrefix() {
        assertThat(CacheRule.DEEPSEEK.cachedTokens(64, 500)).isEqualTo(64);
        assertThat(CacheRule.DEEPSEEK.cachedTokens(127, 500)).isEqualTo(64);
        assertThat(CacheRule.DEEPSEEK.cachedTokens(1000, 5000)).isEqualTo(960);
        assertThat(CacheRule.DEEPSEEK.cachedTokens(4480, 4480)).isEqualTo(4480);
    }

    @Test
    void deepSeekHasNoMinimumPromptUnlikeOpenAi() {
        assertThat(CacheRule.DEEPSEEK.cachedTokens(900, 1000)).isEqualTo(896);
        assertThat(CacheRule.OPENAI.cachedTokens(900, 1000)).isZero();
    }

    @Test
    void aUnitRuleNeverReportsMoreThanThePrompt() {
        assertThat(CacheRule.wholeUnits(10).cachedTokens(95, 42)).isEqualTo(40);
    }

    @Test
    void aUnitMustHoldATokenAtLeast() {
        assertThatThrownBy(() -> CacheRule.wholeUnits(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void openAiHitsFrom1024TokensIn128TokenSteps() {
        assertThat(CacheRule.OPENAI.cachedTokens(1023, 5000)).isZero();
        assertThat(CacheRule.OPENAI.cachedTokens(1024, 5000)).isEqualTo(1024);
        assertThat(CacheRule.OPENAI.cachedTokens(4479, 5000)).isEqualTo(4352);
        assertThat(CacheRule.OPENAI.cachedTokens(4480, 5000)).isEqualTo(4480);
    }
}
