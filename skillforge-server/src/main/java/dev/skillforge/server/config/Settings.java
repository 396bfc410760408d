package dev.skillforge.server.config;

import dev.skillforge.server.provider.ProviderPreset;
import dev.skillforge.server.error.ConfigurationException;
import dev.skillforge.core.agent.TurnLimits;
import dev.skillforge.server.conversation.ConversationTimings;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The server's settings, read from {@code FORGE_*} environment variables (a contract: the names
 * stay). Every value is checked at start, and a wrong one stops the server with a message naming
 * the variable.
 *
 * @param dataDirectory {@code FORGE_DATA_DIR}, or the data folder beside the installation ({@link DataDirectory})
 * @param turnLimits {@code FORGE_MAX_ITERATIONS}, {@code FORGE_MAX_ANSWER_CHARS}, {@code FORGE_MAX_COMMANDS_PER_TURN}
 * @param provider   the preset of the default provider: {@code sim} (the default when no key is configured),
 *                   {@code openai}, {@code gemini}, or another preset ({@link ProviderPreset})
 * @param model      {@code FORGE_MODEL}, or {@code null} for the preset's default
 * @param baseUrl    {@code FORGE_BASE_URL}, or {@code null} for the provider's default
 * @param apiKey     {@code FORGE_API_KEY}, or {@code null}; never logged
 * @param dbUrl      a JDBC URL ({@code jdbc:postgresql://…}), or {@code null} for the embedded SQLite file under the data folder
 * @param dbPassword the database password, or {@code null}; never logged
 * @param providers  every configured provider by name, resolved (keys included, from the environment only), and the default
 * @param conversationTimings {@code FORGE_LEASE_SECONDS}, {@code FORGE_HANDOVER_WAIT_MILLIS}, {@code FORGE_HOT_IDLE_SECONDS},
 *                   {@code FORGE_MAX_HOT_CONVERSATIONS}, {@code FORGE_STORE_WAIT_MILLIS}, {@code FORGE_SHUTDOWN_FLUSH_SECONDS},
 *                   {@code FORGE_SHUTDOWN_GRACE_SECONDS}
 */
public record Settings(String host, int port, DataDirectory dataDirectory, TurnLimits turnLimits, String provider, String model,
                       String apiKey, String baseUrl, Duration providerTimeout,
                       String dbUrl, String dbUser, String dbPassword, ProvidersConfig providers,
                       ConversationTimings conversationTimings) {

    public static final int DEFAULT_PORT = 8080;

    public static Settings fromEnvironment() {
        return from(System.getenv());
    }

    public static Settings from(Map<String, String> env) {
        String apiKey = blankToNull(env.get("FORGE_API_KEY"));
        String baseUrl = blankToNull(env.get("FORGE_BASE_URL"));
        if (baseUrl != null && !baseUrl.matches("(?i)https?://.+")) {
            throw new ConfigurationException("FORGE_BASE_URL must start with http:// or https://, was " + baseUrl);
        }
        DataDirectory dataDirectory = DataDirectory.from(env);
        ProvidersConfig providers = ProvidersConfig.from(env, dataDirectory.path());
        return new Settings(
                env.getOrDefault("FORGE_HOST", "127.0.0.1").strip(),
                integer(env, "FORGE_PORT", DEFAULT_PORT, 0, 65535),
                dataDirectory,
                new TurnLimits(
                        integer(env, "FORGE_MAX_ITERATIONS", TurnLimits.DEFAULT_MAX_ITERATIONS, 1, 100),
                        integer(env, "FORGE_MAX_ANSWER_CHARS", TurnLimits.DEFAULT_MAX_ANSWER_CHARS, 1_000, 100_000_000),
                        integer(env, "FORGE_MAX_COMMANDS_PER_TURN", TurnLimits.DEFAULT_MAX_COMMANDS, 1, 10_000)),
                providers.defaultSpec().preset().id(),
                blankToNull(env.get("FORGE_MODEL")),
                apiKey,
                baseUrl,
                Duration.ofSeconds(integer(env, "FORGE_PROVIDER_TIMEOUT_SECONDS", 120, 1, 3600)),
                dbUrl(env),
                blankToNull(env.get("FORGE_DB_USER")),
                blankToNull(env.get("FORGE_DB_PASSWORD")),
                providers,
                conversationTimings(env));
    }

    /** The data folder: the skills, the workspaces, the SQLite file. */
    public Path dataDir() {
        return dataDirectory.path();
    }

    /** Leases, hand-over, eviction and flushes; every one has the default of {@link ConversationTimings#DEFAULTS}. */
    private static ConversationTimings conversationTimings(Map<String, String> env) {
        ConversationTimings d = ConversationTimings.DEFAULTS;
        Duration lease = Duration.ofSeconds(integer(env, "FORGE_LEASE_SECONDS", (int) d.leaseTtl().toSeconds(), 1, 3600));
        // Renewed well within the lease: every 200 ms, or five times per lease when the lease is shorter than a second.
        Duration renewal = lease.dividedBy(5).compareTo(d.leaseRenewal()) < 0 ? lease.dividedBy(5) : d.leaseRenewal();
        return new ConversationTimings(lease, renewal,
                Duration.ofMillis(integer(env, "FORGE_HANDOVER_WAIT_MILLIS", (int) d.handoverWait().toMillis(), 0, 60_000)),
                Duration.ofSeconds(integer(env, "FORGE_HOT_IDLE_SECONDS", (int) d.idleEviction().toSeconds(), 1, 86_400)),
                integer(env, "FORGE_MAX_HOT_CONVERSATIONS", d.maxHot(), 1, 1_000_000),
                Duration.ofMillis(integer(env, "FORGE_STORE_WAIT_MILLIS", (int) d.storeWait().toMillis(), 0, 60_000)),
                d.handoverFlush(),
                Duration.ofSeconds(integer(env, "FORGE_SHUTDOWN_FLUSH_SECONDS", (int) d.shutdownFlush().toSeconds(), 1, 600)),
                Duration.ofSeconds(integer(env, "FORGE_SHUTDOWN_GRACE_SECONDS", (int) d.shutdownGrace().toSeconds(), 0, 3600)));
    }

    private static String dbUrl(Map<String, String> env) {
        String url = blankToNull(env.get("FORGE_DB_URL"));
        if (url != null && !url.startsWith("jdbc:postgresql:") && !url.startsWith("jdbc:sqlite:")) {
            throw new ConfigurationException("FORGE_DB_URL must be a jdbc:postgresql:// URL (or jdbc:sqlite:FILE), was "
                    + url.replaceAll("password=[^&]*", "password=…"));
        }
        return url;
    }

    /** A whole-number setting within [min, max], or {@code fallback} when unset; a wrong value names its variable. */
    static int integer(Map<String, String> env, String name, int fallback, int min, int max) {
        return (int) wholeNumber(env, name, fallback, min, max);
    }

    /** {@link #integer} for settings that may pass 2^31 (sizes in bytes). */
    static long wholeNumber(Map<String, String> env, String name, long fallback, long min, long max) {
        String value = blankToNull(env.get(name));
        if (value == null) {
            return fallback;
        }
        try {
            long parsed = Long.parseLong(value.strip());
            if (parsed < min || parsed > max) {
                throw new ConfigurationException(name + "=" + value + " is out of range: use " + min + " to " + max);
            }
            return parsed;
        } catch (NumberFormatException e) {
            throw new ConfigurationException(name + "=" + value + " is not a whole number");
        }
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value;
    }

    /** Settings with the API key hidden, for logs. */
    @Override
    public String toString() {
        return "Settings[host=" + host + ", port=" + port + ", dataDir=" + dataDir() + ", turnLimits=" + turnLimits
                + ", provider=" + provider + ", model=" + model + ", apiKey=" + (apiKey == null ? "none" : "(set)")
                + ", baseUrl=" + baseUrl + ", providerTimeout=" + providerTimeout
                + ", db=" + (dbUrl == null ? "embedded" : dbUrl.replaceAll("password=[^&]*", "password=…"))
                + ", providers=" + providers + ", conversationTimings=" + conversationTimings + "]";
    }
}
