package dev.skillforge.core.transcript;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * An append-only conversation transcript: user, assistant and tool entries in the order they
 * happened. There is deliberately no way to edit, remove or reorder an entry. An optional listener
 * sees each appended entry, in order, under the transcript's lock (a store records them from there).
 */
public final class Transcript {

    private final List<Entry> entries = new ArrayList<>();
    private final Consumer<Entry> onAppend;

    public Transcript() {
        this(List.of());
    }

    public Transcript(List<? extends Entry> initial) {
        this(initial, entry -> { });
    }

    /** A transcript holding {@code initial} (not reported to the listener) that reports every later append. */
    public Transcript(List<? extends Entry> initial, Consumer<Entry> onAppend) {
        initial.forEach(entry -> entries.add(Objects.requireNonNull(entry, "entry")));
        this.onAppend = Objects.requireNonNull(onAppend, "onAppend");
    }

    public synchronized void append(Entry entry) {
        entries.add(Objects.requireNonNull(entry, "entry"));
        onAppend.accept(entry);
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
