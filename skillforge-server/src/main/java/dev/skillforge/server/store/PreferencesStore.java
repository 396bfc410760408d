package dev.skillforge.server.store;

import dev.skillforge.server.people.Preferences;

/** Each person's {@link Preferences}, kept where every instance of a fleet reads the same. */
public interface PreferencesStore {

    /** What {@code personId} chose, or {@link Preferences#NONE} when they never saved any. */
    Preferences of(String personId);

    /** Replaces what {@code personId} chose. */
    void save(String personId, Preferences preferences, long nowMillis);
}
