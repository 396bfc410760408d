package dev.skillforge.bench.cache;

import dev.skillforge.core.context.ContextView;
import dev.skillforge.core.transcript.Entry;
import dev.skillforge.core.transcript.Transcript;

import java.util.List;

/**
 * Baseline (one of the history strategies SkillForge replaced): each past turn keeps only the person's message and the final answer; the
 * earlier iterations and their tool output are lost. The current turn's iterations are sent as they are.
 */
final class LastIterationOnly implements ContextView {

    @Override
    public List<Entry> prepare(Transcript transcript, String systemPrompt) {
        return Turns.pastTurnsAnswered(transcript.entries(),
                turn -> turn.reversed().stream().filter(Entry.Assistant.class::isInstance).findFirst());
    }
}
