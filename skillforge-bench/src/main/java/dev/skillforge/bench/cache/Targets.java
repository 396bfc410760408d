package dev.skillforge.bench.cache;

import java.util.ArrayList;
import java.util.List;

/**
 * What SkillForge must reach (docs/cache.md): every token the cache rule made cacheable is cached in a
 * conversation that fits its window (100% of the limit), at least {@value #OVERFLOW_MINIMUM} of
 * it in the conversation that outgrows its window; no failed call and no cache break anywhere.
 */
final class Targets {

    static final double OVERFLOW_MINIMUM = 0.90;

    private Targets() {
    }

    /** Each target SkillForge missed, in words; empty when it met them all. */
    static List<String> misses(List<Measurement> measurements) {
        List<String> misses = new ArrayList<>();
        for (Measurement measurement : measurements) {
            if (!(measurement.strategy() instanceof HistoryStrategy.SkillForge)) {
                continue;
            }
            for (ConversationResult result : measurement.conversations()) {
                String where = measurement.rule().name() + " / " + result.conversation().name() + ": ";
                long cached = result.cached();
                long cacheable = result.cacheable(measurement.rule().rule());
                if (result.failed() > 0) {
                    misses.add(where + result.failed() + " failed call(s)");
                }
                if (result.breaks() > 0) {
                    misses.add(where + result.breaks() + " cache break(s)");
                }
                if (!result.conversation().outgrowsWindow() && cached != cacheable) {
                    misses.add(where + cached + " of " + cacheable + " cacheable tokens cached (the target is all of them)");
                }
                if (result.conversation().outgrowsWindow()) {
                    if (result.cuts() == 0) {
                        misses.add(where + "never outgrew its window: the suite does not test overflow");
                    }
                    if (Measurement.share(cached, cacheable) < OVERFLOW_MINIMUM) {
                        misses.add(where + cached + " of " + cacheable + " cacheable tokens cached (the target is 90%)");
                    }
                }
            }
        }
        return misses;
    }
}
