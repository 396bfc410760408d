package dev.skillforge.server.provider;

import dev.skillforge.server.document.Vision;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Every configured provider by name, built once at start, and the default one. Choosing a provider
 * per conversation is the caller's business: this only answers {@link #get(String)}.
 *
 * <p>A hosted provider configured without its key is still listed (with {@code keyPresent: false}) and
 * fails each call with {@code provider_no_key}; only the default provider must have its key at start.
 */
public final class ProviderRegistry implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ProviderRegistry.class);

    /** What may be shown about a provider: never its key, only whether there is one. */
    public record Listing(String name, String preset, String model, boolean simulated, boolean keyPresent, boolean isDefault,
                          int contextWindow, Vision vision) {
    }

    private final Map<String, ConfiguredProvider> providers;
    private final String defaultName;

    private ProviderRegistry(Map<String, ConfiguredProvider> providers, String defaultName) {
        if (!providers.containsKey(defaultName)) {
            throw new IllegalArgumentException("the default provider " + defaultName + " is not among " + providers.keySet());
        }
        this.providers = providers;
        this.defaultName = defaultName;
    }

    /**
     * Builds every provider of {@code specs} with {@code factory}; if one fails, those already built are closed.
     *
     * @param defaultName the one a conversation that names none runs on, among {@code specs}
     * @param factory     builds (and for a simulation, starts) one provider
     */
    public static ProviderRegistry build(List<ProviderSpec> specs, String defaultName, Function<ProviderSpec, ConfiguredProvider> factory) {
        Map<String, ConfiguredProvider> built = new LinkedHashMap<>();
        try {
            for (ProviderSpec spec : specs) {
                built.put(spec.name(), factory.apply(spec));
                if (spec.keyRequired() && !spec.keyPresent()) {
                    log.warn("Provider {} ({}) has no API key in {}: its calls will fail until it is set",
                            spec.name(), spec.preset().id(), spec.apiKeyEnv());
                }
            }
        } catch (RuntimeException e) {
            closeAll(built.values());
            throw e;
        }
        return new ProviderRegistry(built, defaultName);
    }

    /** A registry of one provider, the default (tests and benchmarks that build their provider by hand). */
    public static ProviderRegistry single(ConfiguredProvider provider) {
        return of(provider.name(), List.of(provider));
    }

    /** A registry of providers built by hand, in order. */
    public static ProviderRegistry of(String defaultName, List<ConfiguredProvider> providers) {
        Map<String, ConfiguredProvider> byName = new LinkedHashMap<>();
        providers.forEach(provider -> byName.put(provider.name(), provider));
        return new ProviderRegistry(byName, defaultName);
    }

    /** The provider named {@code name}. */
    public Optional<ConfiguredProvider> find(String name) {
        return Optional.ofNullable(name == null ? null : providers.get(name));
    }

    /**
     * The provider named {@code name}.
     *
     * @throws IllegalArgumentException when none has that name (the message lists the names there are)
     */
    public ConfiguredProvider get(String name) {
        return find(name).orElseThrow(() -> new IllegalArgumentException(
                "no provider is named " + name + ": configured are " + String.join(", ", providers.keySet())));
    }

    public String defaultName() {
        return defaultName;
    }

    public ConfiguredProvider defaultProvider() {
        return providers.get(defaultName);
    }

    /** The names, in configuration order (the default's first when it came from the environment). */
    public List<String> names() {
        return List.copyOf(providers.keySet());
    }

    /** What {@code GET /api/providers} shows. */
    public List<Listing> listings() {
        List<Listing> listings = new ArrayList<>();
        for (ConfiguredProvider provider : providers.values()) {
            listings.add(new Listing(provider.name(), provider.preset(), provider.modelName(), provider.simulated(),
                    provider.keyPresent(), provider.name().equals(defaultName), provider.contextWindow(), provider.vision()));
        }
        return listings;
    }

    @Override
    public void close() {
        closeAll(providers.values());
    }

    private static void closeAll(Iterable<ConfiguredProvider> providers) {
        for (ConfiguredProvider provider : providers) {
            try {
                provider.close();
            } catch (Exception e) {
                log.warn("closing provider {}: {}", provider.name(), e.toString());
            }
        }
    }
}
