package dev.skillforge.core.agent;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Usage figures: unknown is not zero, also for cache writes. */
class UsageTest {

    @Test
    void aProviderThatReportsNoCacheWritesLeavesThemUnknown() {
        assertThat(new Usage(10L, 2L, 0L).cacheWriteTokens()).isNull();
    }

    @Test
    void theSumKeepsAFigureUnknownOnlyWhenBothSidesDoNotKnowIt() {
        Usage anthropic = new Usage(1000L, 50L, 800L, 150L);
        Usage openAi = new Usage(500L, 20L, 0L);

        assertThat(anthropic.plus(openAi)).isEqualTo(new Usage(1500L, 70L, 800L, 150L));
        assertThat(openAi.plus(openAi).cacheWriteTokens()).isNull();
        assertThat(Usage.UNKNOWN.plus(Usage.UNKNOWN)).isEqualTo(Usage.UNKNOWN);
    }
}
