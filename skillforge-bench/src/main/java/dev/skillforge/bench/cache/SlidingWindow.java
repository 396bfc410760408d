package dev.skillforge.bench.cache;

import dev.skillforge.core.context.ContextView;
import dev.skillforge.core.transcript.Entry;
import dev.skillforge.core.transcript.Transcript;

import java.util.List;

/** Baseline: the last {@code size} messages, as Spring AI's {@code MessageWindowChatMemory} keeps them (20 by default). */
record SlidingWindow(int size) implements ContextView {

    /** Spring AI's default window. */
    static final int SPRING_AI_DEFAULT = 20;

    @Override
    public List<Entry> prepare(Transcript transcript, String systemPrompt) {
        List<Entry> entries = transcript.entries();
        return entries.subList(Math.max(0, entries.size() - size), entries.size());
    }
}
