package dev.skillforge.core.context;

import dev.skillforge.core.transcript.Entry;
import dev.skillforge.core.transcript.Transcript;

import java.util.ArrayList;
import java.util.List;

/**
 * What the model is sent of a transcript on its next call. The production view is the whole
 * transcript, cut in rare large steps when it outgrows the model's context window
 * ({@link ContextWindow}); the cache benchmark plugs in the history strategies it compares against.
 */
@FunctionalInterface
public interface ContextView {

    /**
     * The entries of the next model call. May append to {@code transcript} (a {@link Entry.ContextCut})
     * but never changes what is there.
     *
     * @param systemPrompt the conversation's fixed system prompt, which is always sent as well
     */
    List<Entry> prepare(Transcript transcript, String systemPrompt);

    /** Everything the transcript holds, as its last context cut left it: no window. */
    ContextView WHOLE = (transcript, systemPrompt) -> visible(transcript.entries());

    /**
     * The entries the model sees of {@code entries}: all of them when there is no context cut; else the
     * last cut's note followed by the entries from its {@code keepFrom} on, without the other cuts.
     */
    static List<Entry> visible(List<Entry> entries) {
        int last = -1;
        for (int i = entries.size() - 1; i >= 0; i--) {
            if (entries.get(i) instanceof Entry.ContextCut) {
                last = i;
                break;
            }
        }
        if (last < 0) {
            return entries;
        }
        Entry.ContextCut cut = (Entry.ContextCut) entries.get(last);
        // keepFrom past the end (only a bad stored value) must not make the capacity negative
        List<Entry> view = new ArrayList<>(Math.max(1, entries.size() - cut.keepFrom() + 1));
        view.add(cut);
        for (Entry entry : entries.subList(Math.min(cut.keepFrom(), entries.size()), entries.size())) {
            if (!(entry instanceof Entry.ContextCut)) {
                view.add(entry);
            }
        }
        return List.copyOf(view);
    }
}
