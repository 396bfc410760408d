package dev.skillforge.core.transcript;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * An append-only conversation transcript: user, assistant and tool entries in the order they
 * happened. There is deliberately no way to edit, remove or reorder an entry. An optional listener
 * sees each appended entry, in order, under the transcript's lock (a store records them from there).
 * The lock is the transcript itself, or an object its owner passes in so that the transcript and the
 * owner's own state are guarded by one lock.
 */
public final class Transcript {

    private final List<Entry> entries = new ArrayList<>();
    private final Consumer<Entry> onAppend;
    private final Object lock;

    public Transcript() {
        this(List.of());
    }

    public Transcript(List<? extends Entry> initial) {
        this(initial, entry -> { });
    }

    /** A transcript holding {@code initial} (not reported to the listener) that reports every later append. */
    public Transcript(List<? extends Entry> initial, Consumer<Entry> onAppend) {
        this(initial, onAppend, null);
    }

    /**
     * @param lock the monitor that guards this transcript (and that {@code onAppend} runs under), or
     *             {@code null} for the transcript itself
     */
    public Transcript(List<? extends Entry> initial, Consumer<Entry> onAppend, Object lock) {
        initial.forEach(entry -> entries.add(Objects.requireNonNull(entry, "entry")));
        this.onAppend = Objects.requireNonNull(onAppend, "onAppend");
        this.lock = lock == null ? this : lock;
    }

    public void append(Entry entry) {
        synchronized (lock) {
            entries.add(Objects.requireNonNull(entry, "entry"));
            onAppend.accept(entry);
        }
    }

    /** An immutable snapshot of the entries so far. */
    public List<Entry> entries() {
        synchronized (lock) {
            return List.copyOf(entries);
        }
    }

    public int size() {
        synchronized (lock) {
            return entries.size();
        }
    }

    public Entry last() {
        synchronized (lock) {
            return entries.isEmpty() ? null : entries.getLast();
        }
    }
}
