package dev.skillforge.server.config;

import dev.skillforge.server.exec.CommandPolicy;
import dev.skillforge.server.exec.ProcessRunner;
import dev.skillforge.server.exec.SandboxSettings;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The security settings, read from {@code FORGE_*} variables beside {@link Settings}: who may call
 * the API, from which origins, and what the model's commands may run. Checked at start like every
 * setting: a wrong value stops the server with a message naming the variable.
 *
 * @param apiToken    {@code FORGE_API_TOKEN}: the bearer token every API call and the page need, or
 *                    {@code null} for none (allowed only on a loopback address); never logged
 * @param corsOrigins {@code FORGE_CORS_ORIGINS}: the origins allowed to call the API from a browser
 *                    (none by default: no CORS headers at all)
 * @param commands    {@code FORGE_ALLOW_COMMANDS} and {@code FORGE_ALLOW_ARGS_NAME}, resolved
 * @param limits      {@code FORGE_COMMAND_TIMEOUT_SECONDS}, {@code FORGE_COMMAND_OUTPUT_BYTES},
 *                    {@code FORGE_MAX_CONCURRENT_COMMANDS}
 * @param sandbox     {@code FORGE_SANDBOX} ({@code bwrap} by default, or {@code none}) and
 *                    {@code FORGE_SANDBOX_NETWORK} ({@code 0} by default, or {@code 1})
 * @param idleTimeout {@code FORGE_IDLE_TIMEOUT_SECONDS}: a connection that sends or takes nothing
 *                    for this long is closed; request headers must arrive within
 *                    {@link #headerTimeout()}
 */
public record SecuritySettings(String apiToken, List<String> corsOrigins, CommandPolicy commands, ProcessRunner.Limits limits,
                               SandboxSettings sandbox, Duration idleTimeout) {

    /** The shortest token accepted: 16 characters, 2^96 and more to guess from a short alphabet. */
    public static final int MIN_TOKEN_LENGTH = 16;
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(30);
    /** Request headers must be complete within this (or the idle timeout, if shorter). */
    public static final Duration MAX_HEADER_TIME = Duration.ofSeconds(10);

    private static final Pattern ORIGIN = Pattern.compile("https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?|https?://\\[[0-9A-Fa-f:.]+](:[0-9]{1,5})?");

    public SecuritySettings {
        corsOrigins = List.copyOf(corsOrigins);
    }

    /** No token, no CORS, no programs (and bubblewrap for any that are allowed later): what a loopback demo runs with. */
    public static SecuritySettings defaults() {
        return new SecuritySettings(null, List.of(), CommandPolicy.none(), ProcessRunner.Limits.DEFAULT, SandboxSettings.DEFAULT,
                DEFAULT_IDLE_TIMEOUT);
    }

    public static SecuritySettings fromEnvironment() {
        return from(System.getenv());
    }

    public static SecuritySettings from(Map<String, String> env) {
        String token = env.get("FORGE_API_TOKEN");
        if (token != null && token.isEmpty()) {
            token = null;
        }
        if (token != null) {
            if (token.length() < MIN_TOKEN_LENGTH) {
                throw new IllegalArgumentException("FORGE_API_TOKEN is too short: use at least " + MIN_TOKEN_LENGTH
                        + " characters (e.g. openssl rand -hex 32)");
            }
            if (!token.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
                throw new IllegalArgumentException("FORGE_API_TOKEN must be printable ASCII without spaces");
            }
        }
        Map<String, String> argPatterns = new LinkedHashMap<>();
        env.forEach((name, value) -> {
            if (name.startsWith("FORGE_ALLOW_ARGS_")) {
                argPatterns.put(name, value);
            }
        });
        CommandPolicy commands = CommandPolicy.resolve(list(env.get("FORGE_ALLOW_COMMANDS")), argPatterns);
        ProcessRunner.Limits limits = new ProcessRunner.Limits(
                Duration.ofSeconds(Settings.integer(env, "FORGE_COMMAND_TIMEOUT_SECONDS", 10, 1, 3600)),
                Settings.integer(env, "FORGE_COMMAND_OUTPUT_BYTES", 1024 * 1024, 1024, 64 * 1024 * 1024),
                Settings.integer(env, "FORGE_MAX_CONCURRENT_COMMANDS", 4, 1, 256));
        SandboxSettings sandbox = new SandboxSettings(SandboxSettings.kind(env.get("FORGE_SANDBOX")),
                Settings.integer(env, "FORGE_SANDBOX_NETWORK", 0, 0, 1) == 1);
        return new SecuritySettings(token, origins(env.get("FORGE_CORS_ORIGINS")), commands, limits, sandbox,
                Duration.ofSeconds(Settings.integer(env, "FORGE_IDLE_TIMEOUT_SECONDS", (int) DEFAULT_IDLE_TIMEOUT.toSeconds(), 1, 3600)));
    }

    /** The same settings with another API token ({@code null} for none). */
    public SecuritySettings withApiToken(String token) {
        return new SecuritySettings(token, corsOrigins, commands, limits, sandbox, idleTimeout);
    }

    public SecuritySettings withCommands(CommandPolicy policy, ProcessRunner.Limits commandLimits) {
        return new SecuritySettings(apiToken, corsOrigins, policy, commandLimits, sandbox, idleTimeout);
    }

    public SecuritySettings withSandbox(SandboxSettings settings) {
        return new SecuritySettings(apiToken, corsOrigins, commands, limits, settings, idleTimeout);
    }

    public SecuritySettings withCorsOrigins(List<String> origins) {
        return new SecuritySettings(apiToken, origins, commands, limits, sandbox, idleTimeout);
    }

    public SecuritySettings withIdleTimeout(Duration timeout) {
        return new SecuritySettings(apiToken, corsOrigins, commands, limits, sandbox, timeout);
    }

    public Duration headerTimeout() {
        return idleTimeout.compareTo(MAX_HEADER_TIME) < 0 ? idleTimeout : MAX_HEADER_TIME;
    }

    /**
     * Refuses to serve on an address other machines can reach without a token.
     *
     * @throws IllegalArgumentException naming {@code FORGE_HOST} and {@code FORGE_API_TOKEN}
     */
    public void checkBinding(String host) {
        if (apiToken != null || isLoopback(host)) {
            return;
        }
        throw new IllegalArgumentException("FORGE_HOST=" + host + " is not a loopback address and FORGE_API_TOKEN is not set: "
                + "anyone who can reach the server could use it and run its commands. Set FORGE_API_TOKEN (at least "
                + MIN_TOKEN_LENGTH + " characters, e.g. `openssl rand -hex 32`), or bind to 127.0.0.1");
    }

    /** True when {@code host} names only this machine (127.0.0.0/8, ::1, localhost). */
    public static boolean isLoopback(String host) {
        if (host == null || host.isBlank()) {
            return false;
        }
        String bare = host.strip();
        if (bare.startsWith("[") && bare.endsWith("]")) {
            bare = bare.substring(1, bare.length() - 1);
        }
        if (bare.equalsIgnoreCase("localhost")) {
            return true;
        }
        if (!bare.matches("[0-9.]+|[0-9A-Fa-f:.]+")) {
            return false; // a name other than localhost: whatever it resolves to today may change
        }
        try {
            return InetAddress.getByName(bare).isLoopbackAddress(); // a literal: no lookup
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static List<String> list(String value) {
        if (value == null || value.isBlank()) {
            return List.of();
        }
        return Arrays.stream(value.split(",")).map(String::strip).filter(s -> !s.isEmpty()).distinct().toList();
    }

    private static List<String> origins(String value) {
        List<String> origins = list(value);
        for (String origin : origins) {
            if (!ORIGIN.matcher(origin).matches()) {
                throw new IllegalArgumentException("FORGE_CORS_ORIGINS: '" + origin + "' is not an origin: write scheme://host[:port],"
                        + " e.g. https://app.example.com (no path, no wildcard)");
            }
        }
        return origins.stream().map(o -> o.toLowerCase(Locale.ROOT)).toList();
    }

    /** The settings with the token hidden, for logs. */
    @Override
    public String toString() {
        return "SecuritySettings[apiToken=" + (apiToken == null ? "none" : "(set)") + ", corsOrigins=" + corsOrigins
                + ", allowCommands=" + commands + ", limits=" + limits + ", sandbox=" + sandbox + ", idleTimeout=" + idleTimeout + "]";
    }
}
