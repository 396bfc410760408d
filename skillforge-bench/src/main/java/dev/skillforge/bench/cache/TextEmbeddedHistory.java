package dev.skillforge.bench.cache;

import dev.skillforge.core.context.ContextView;
import dev.skillforge.core.transcript.Entry;
import dev.skillforge.core.transcript.Transcript;

import java.util.ArrayList;
import java.util.List;

/**
 * Baseline (one of the history strategies SkillForge replaced): the history before the current turn pasted as text in front of the person's
 * message, {@code "=== CONVERSATION HISTORY ===\nTurn N: user said: …\n"} then a blank line and the
 * message, as one user message; the current turn's iterations follow as messages.
 */
final class TextEmbeddedHistory implements ContextView {

    @Override
    public List<Entry> prepare(Transcript transcript, String systemPrompt) {
        List<Entry> entries = transcript.entries();
        List<Entry> current = Turns.current(entries);
        if (current.size() == entries.size()) {
            return entries;
        }
        StringBuilder history = new StringBuilder("=== CONVERSATION HISTORY ===\n");
        int turn = 0;
        for (List<Entry> past : Turns.past(entries)) {
            turn++;
            for (Entry entry : past) {
                history.append("Turn ").append(turn).append(": ").append(role(entry)).append(" said: ").append(entry.content()).append('\n');
            }
        }
        List<Entry> view = new ArrayList<>();
        view.add(new Entry.User(history + "\n\n" + current.getFirst().content()));
        view.addAll(current.subList(1, current.size()));
        return view;
    }

    private static String role(Entry entry) {
        return switch (entry) {
            case Entry.User user -> "user";
            case Entry.Assistant assistant -> "assistant";
            case Entry.Tool tool -> "tool";
            case Entry.ContextCut cut -> "note";
        };
    }
}
