package dev.skillforge.bench.cache;

import dev.skillforge.core.transcript.Entry;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/** A transcript's entries split into turns, each starting with the person's message, for the baseline views. */
final class Turns {

    private Turns() {
    }

    /** The index of the current turn's user entry (the last one), or 0 when there is none. */
    static int currentStart(List<Entry> entries) {
        for (int i = entries.size() - 1; i >= 0; i--) {
            if (entries.get(i) instanceof Entry.User) {
                return i;
            }
        }
        return 0;
    }

    /** The turns before the current one, each its user entry and the iterations after it. */
    static List<List<Entry>> past(List<Entry> entries) {
        List<List<Entry>> turns = new ArrayList<>();
        for (Entry entry : entries.subList(0, currentStart(entries))) {
            if (entry instanceof Entry.User || turns.isEmpty()) {
                turns.add(new ArrayList<>());
            }
            turns.getLast().add(entry);
        }
        return turns;
    }

    /**
     * The view of the baselines that keep one answer a past turn: each past turn's user entry followed
     * by {@code answer} of the turn (if it has one), then the current turn as it is.
     */
    static List<Entry> pastTurnsAnswered(List<Entry> entries, Function<List<Entry>, Optional<Entry>> answer) {
        List<Entry> view = new ArrayList<>();
        for (List<Entry> turn : past(entries)) {
            view.add(turn.getFirst());
            answer.apply(turn).ifPresent(view::add);
        }
        view.addAll(current(entries));
        return view;
    }

    /** The current turn: its user entry and the iterations so far. */
    static List<Entry> current(List<Entry> entries) {
        return entries.subList(currentStart(entries), entries.size());
    }
}
