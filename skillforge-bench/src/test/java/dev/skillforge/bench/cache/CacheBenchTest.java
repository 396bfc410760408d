package dev.skillforge.bench.cache;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The cache benchmark's quick suite, through the real server and the simulated provider under every
 * cache rule: SkillForge caches all the rule allows without overflow and at least 90% with it, and
 * every baseline that sends something else than SkillForge caches less.
 */
class CacheBenchTest {

    private static List<Measurement> measurements;

    @BeforeAll
    static void runTheQuickSuite() throws Exception {
        measurements = CacheBench.measure(CacheSuite.quick());
    }

    @Test
    void everyRuleAndStrategyRanEveryConversation() {
        assertThat(measurements).hasSize(RuleCase.ALL.size() * HistoryStrategy.ALL.size());
        assertThat(measurements).allSatisfy(m -> assertThat(m.conversations()).hasSize(CacheSuite.quick().size()));
    }

    @Test
    void skillForgeCachesAllTheRuleAllowsWithoutOverflowAndNinetyPercentWithIt() {
        assertThat(Targets.misses(measurements)).isEmpty();
        for (Measurement m : skillForge()) {
            ConversationResult overflow = m.conversations().stream().filter(c -> c.conversation().outgrowsWindow()).findFirst().orElseThrow();
            assertThat(overflow.cuts()).as(m.rule().name() + ": the overflow conversation was cut").isPositive();
            assertThat(Measurement.share(overflow.cached(), overflow.cacheable(m.rule().rule())))
                    .as(m.rule().name() + ": cached / cacheable in the overflow conversation").isGreaterThanOrEqualTo(Targets.OVERFLOW_MINIMUM);
        }
    }

    @Test
    void aBaselineThatSendsOtherRequestsThanSkillForgeCachesLessOfWhatTheRuleAllows() {
        for (Measurement baseline : measurements) {
            if (baseline.strategy() instanceof HistoryStrategy.SkillForge) {
                continue;
            }
            Measurement reference = skillForge().stream().filter(m -> m.rule() == baseline.rule()).findFirst().orElseThrow();
            for (int i = 0; i < baseline.conversations().size(); i++) {
                ConversationResult theirs = baseline.conversations().get(i);
                ConversationResult ours = reference.conversations().get(i);
                String where = baseline.rule().name() + " / " + baseline.strategy().name() + " / " + theirs.conversation().name();
                double theirShare = Measurement.share(theirs.cached(), theirs.cacheable(baseline.rule().rule()));
                double ourShare = Measurement.share(ours.cached(), ours.cacheable(baseline.rule().rule()));
                if (theirs.calls().equals(ours.calls()) && theirs.failed() == 0) {
                    assertThat(theirs.breaks()).as(where + ": the same requests as SkillForge's break nothing").isZero();
                } else {
                    assertThat(theirShare).as(where + ": cached / cacheable, against SkillForge's").isLessThan(ourShare);
                }
            }
        }
    }

    @Test
    void underAnthropicsRuleSkillForgeWritesEachPromptOnceAndReadsItBack() {
        Measurement anthropic = skillForge().stream().filter(m -> m.rule().wire() == RuleCase.Wire.ANTHROPIC).findFirst().orElseThrow();
        for (ConversationResult c : anthropic.conversations()) {
            if (c.conversation().outgrowsWindow()) {
                continue;
            }
            List<ConversationResult.Call> calls = c.calls();
            for (int k = 1; k < calls.size(); k++) {
                ConversationResult.Call previous = calls.get(k - 1);
                ConversationResult.Call call = calls.get(k);
                if (previous.prompt() >= 1024) {
                    // the whole previous prompt is read; only what this call adds is written
                    assertThat(call.cached()).as(c.conversation().name() + " call " + k).isEqualTo(previous.prompt());
                    assertThat(call.written()).as(c.conversation().name() + " call " + k).isEqualTo(call.prompt() - previous.prompt());
                }
            }
        }
    }

    @Test
    void theSuitesCostIsKnownUnderEveryRuleAndIsTheSumOfItsCallsAtTheRulesPrices() {
        for (Measurement m : measurements) {
            double expected = 0;
            for (ConversationResult c : m.conversations()) {
                for (ConversationResult.Call call : c.calls()) {
                    long written = call.written() == null ? 0 : call.written();
                    var prices = m.rule().price().prices();
                    expected += ((call.prompt() - call.cached() - written) * prices.input() + call.cached() * prices.cachedInput()
                            + written * prices.cacheWrite() + call.output() * prices.output()) / 1e6;
                }
            }
            assertThat(m.cost()).as(m.rule().name() + " / " + m.strategy().name()).isPositive().isCloseTo(expected, within(1e-9));
        }
        // where every call misses the cache, Anthropic's write premium makes the text-embedded history cost more than SkillForge
        Measurement anthropicSkillForge = skillForge().stream().filter(m -> m.rule().wire() == RuleCase.Wire.ANTHROPIC).findFirst().orElseThrow();
        Measurement anthropicEmbedded = measurements.stream().filter(m -> m.rule() == anthropicSkillForge.rule()
                && m.strategy().name().equals("text-embedded history")).findFirst().orElseThrow();
        assertThat(anthropicSkillForge.cost()).isLessThan(anthropicEmbedded.cost());
    }

    @Test
    void thePrefixGuardCountsABaselinesCacheBreaksInsteadOfFailingItsCalls() {
        for (Measurement m : measurements) {
            if (m.strategy().name().equals("text-embedded history")) {
                ConversationResult forge = m.conversations().stream().filter(c -> c.conversation().name().equals("forge")).findFirst().orElseThrow();
                assertThat(forge.breaks()).as(m.rule().name() + ": one break a new turn").isEqualTo(forge.conversation().turns().size() - 1);
                assertThat(forge.failed()).isZero();
            }
        }
    }

    private static List<Measurement> skillForge() {
        return measurements.stream().filter(m -> m.strategy() instanceof HistoryStrategy.SkillForge).toList();
    }
}
