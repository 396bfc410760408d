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

    @Test
    void anthropicReadsTheWholeSharedPrefixFromTheModelsMinimumOn() {
        CacheRule sonnet = CacheRule.forAnthropicModel("claude-sonnet-5-5");
        assertThat(sonnet.cachedTokens(1023, 5000)).isZero();
        assertThat(sonnet.cachedTokens(1024, 5000)).isEqualTo(1024);
        assertThat(sonnet.cachedTokens(4479, 5000)).as("no steps: every token of the prefix").isEqualTo(4479);
        assertThat(CacheRule.forAnthropicModel("claude-haiku-4-5").cachedTokens(4000, 5000)).isZero();
    }

    @Test
    void anthropicsMinimumFollowsTheModelsName() {
        assertThat(CacheRule.anthropicMinimum("claude-opus-4-6")).isEqualTo(4096);
        assertThat(CacheRule.anthropicMinimum("claude-opus-4-5-20251101")).isEqualTo(4096);
        assertThat(CacheRule.anthropicMinimum("claude-haiku-4-5")).isEqualTo(4096);
        assertThat(CacheRule.anthropicMinimum("claude-3-5-haiku-20241022")).isEqualTo(2048);
        assertThat(CacheRule.anthropicMinimum("claude-sonnet-4-6")).isEqualTo(1024);
        assertThat(CacheRule.anthropicMinimum("skillforge-sim-1")).isEqualTo(1024);
    }
}
