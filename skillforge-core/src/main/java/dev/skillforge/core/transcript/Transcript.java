package dev.skillforge.core.transcript;

import java.util.ArrayList;
import java.util.List;

/**
 * An append-only conversation transcript: user, assistant and tool entries in the order they
 * happened. There is deliberately no way to edit, remove or reorder an entry.
 */
public final class Transcript {

    private final List<Entry> entries = new ArrayList<>();

    public Transcript() {
    }

    public Transcript(List<? extends Entry> initial) {
        initial.forEach(this::append);
    }

    public synchronized void append(Entry entry) {
        entries.add(java.util.Objects.requireNonNull(entry, "entry"));
    }

    /** An immutable snapshot of the entries so far. */
    public synchronized List<Entry> entries() {
        return List.copyOf(entries);
    }

    public synchronized int size() {
        return entries.size();
    }

    public synchronized Entry last() {
        return entries.isEmpty() ? null : entries.getLast();
    }
}
