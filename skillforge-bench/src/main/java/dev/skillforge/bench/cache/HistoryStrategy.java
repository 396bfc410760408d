package dev.skillforge.bench.cache;

import dev.skillforge.core.context.ContextView;

import java.util.List;

/** How the history of a conversation is turned into what the model is sent. */
sealed interface HistoryStrategy {

    String name();

    /** SkillForge itself: the whole transcript, cut by the server's own {@code ContextWindow} at the model's window. */
    record SkillForge() implements HistoryStrategy {
        @Override
        public String name() {
            return "SkillForge";
        }
    }

    /**
     * A baseline: {@code view} decides every request (a pure function of the transcript); the server's
     * window is out of its way, so the baseline handles (or fails to handle) overflow by itself.
     */
    record Baseline(String name, ContextView view) implements HistoryStrategy {
    }

    HistoryStrategy SKILLFORGE = new SkillForge();

    /** SkillForge first, then the baselines of the seeds and Spring AI's default memory. */
    List<HistoryStrategy> ALL = List.of(SKILLFORGE,
            new Baseline("text-embedded history", new TextEmbeddedHistory()),
            new Baseline("rebuilt from parts", new RebuiltFromParts()),
            new Baseline("last iteration only", new LastIterationOnly()),
            new Baseline("20-message window", new SlidingWindow(SlidingWindow.SPRING_AI_DEFAULT)));
}
