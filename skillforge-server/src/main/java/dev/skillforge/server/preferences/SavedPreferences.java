package dev.skillforge.server.preferences;

import dev.skillforge.server.conversation.PersonalDefaults;
import dev.skillforge.server.people.Preferences;
import dev.skillforge.server.store.PreferencesStore;
import dev.skillforge.server.store.StoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.InstantSource;
import java.util.List;
import java.util.Objects;

/**
 * Each person's saved {@link Preferences}: read and changed by the settings page, and what their new conversations
 * start with. A default provider must be one this server has when it is saved; one removed from the configuration
 * later is passed over (the conversation starts on the server's default).
 */
public final class SavedPreferences implements PersonalDefaults {

    private static final Logger LOG = LoggerFactory.getLogger(SavedPreferences.class);

    private final PreferencesStore store;
    private final List<String> providers;
    private final InstantSource clock;

    /** @param providers the names of the configured providers, the only default a person may choose */
    public SavedPreferences(PreferencesStore store, List<String> providers, InstantSource clock) {
        this.store = Objects.requireNonNull(store, "store");
        this.providers = List.copyOf(providers);
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** @throws StoreException when the database cannot be read */
    public Preferences of(String personId) {
        return store.of(personId);
    }

    /**
     * Saves what {@code personId} chose.
     *
     * @throws IllegalArgumentException naming the configured providers, when the default is not one of them
     * @throws StoreException           when the database cannot be written
     */
    public Preferences save(String personId, Preferences preferences) {
        preferences.defaultProvider().filter(name -> !providers.contains(name)).ifPresent(name -> {
            throw new IllegalArgumentException("'defaultProvider' must be one of this server's providers (" + String.join(", ", providers)
                    + ") or null, not '" + name + "'");
        });
        store.save(personId, preferences, clock.millis());
        return preferences;
    }

    @Override
    public Start start(String personId) {
        try {
            Preferences preferences = store.of(personId);
            return new Start(preferences.defaultProvider(), preferences.instructions());
        } catch (StoreException e) {
            // A conversation may still start: on the server's defaults, said in the log.
            LOG.warn("the preferences of person {} could not be read ({}): the conversation starts on the server's defaults", personId,
                    e.getMessage());
            return Start.NONE;
        }
    }
}
