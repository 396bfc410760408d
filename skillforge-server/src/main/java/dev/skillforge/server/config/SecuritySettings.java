package dev.skillforge.server.config;

import dev.skillforge.server.webpage.WebSettings;
import dev.skillforge.server.error.ConfigurationException;
import dev.skillforge.server.exec.CommandPolicy;
import dev.skillforge.server.exec.ProcessRunner;
import dev.skillforge.server.exec.SandboxSettings;
import dev.skillforge.server.exec.SandboxUser;
import dev.skillforge.server.exec.WorkspaceQuota;
import dev.skillforge.server.http.AllowedHosts;
import dev.skillforge.server.http.ConnectionLimits;
import dev.skillforge.server.http.HttpSettings;

import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The security settings, read from {@code FORGE_*} variables beside {@link Settings}: who may call
 * the API, from which origins and under which host names, how long and how many connections a
 * client may hold, and what the model's commands may run. Checked at start like every
 * setting: a wrong value stops the server with a message naming the variable.
 *
 * @param apiToken     {@code FORGE_API_TOKEN}: the bearer token every API call and the page need, or
 *                     {@code null} for none (allowed only on a loopback address); never logged
 * @param corsOrigins  {@code FORGE_CORS_ORIGINS}: the origins allowed to call the API from a browser
 *                     (none by default: no CORS headers at all)
 * @param allowedHosts {@code FORGE_ALLOWED_HOSTS}: the {@code Host} names answered besides loopback
 *                     addresses and {@code localhost} (see {@link AllowedHosts})
 * @param commands     {@code FORGE_ALLOW_COMMANDS} and {@code FORGE_ALLOW_ARGS_NAME}, resolved
 * @param limits       {@code FORGE_COMMAND_TIMEOUT_SECONDS}, {@code FORGE_COMMAND_OUTPUT_BYTES},
 *                     {@code FORGE_MAX_CONCURRENT_COMMANDS}
 * @param sandbox      {@code FORGE_SANDBOX} ({@code bwrap} by default, or {@code none}),
 *                     {@code FORGE_SANDBOX_NETWORK} ({@code 0} by default, or {@code 1}), {@code FORGE_SANDBOX_UID}
 *                     and the workspace quota ({@code FORGE_WORKSPACE_MAX_FILES}, {@code FORGE_WORKSPACE_MAX_BYTES})
 * @param connections  {@code FORGE_IDLE_TIMEOUT_SECONDS}, {@code FORGE_MAX_CONNECTIONS_PER_CLIENT}
 * @param web          {@code FORGE_ALLOW_WEB} ({@code 0} by default, or {@code 1}) and {@code FORGE_WEB_HOSTS}: the {@code web get} command
 */
public record SecuritySettings(String apiToken, List<String> corsOrigins, AllowedHosts allowedHosts, CommandPolicy commands,
                               ProcessRunner.Limits limits, SandboxSettings sandbox, ConnectionLimits connections, WebSettings web) {

    /** The shortest token accepted: 16 characters, 2^96 and more to guess from a short alphabet. */
    public static final int MIN_TOKEN_LENGTH = 16;

    private static final Pattern ORIGIN = Pattern.compile("https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?|https?://\\[[0-9A-Fa-f:.]+](:[0-9]{1,5})?");

    public SecuritySettings {
        corsOrigins = List.copyOf(corsOrigins);
    }

    /** No token, no CORS, no programs (and bubblewrap for any that are allowed later): what a loopback demo runs with. */
    public static SecuritySettings defaults() {
        return new SecuritySettings(null, List.of(), AllowedHosts.loopbackOnly(), CommandPolicy.none(), ProcessRunner.Limits.DEFAULT,
                SandboxSettings.DEFAULT, ConnectionLimits.DEFAULT, WebSettings.OFF);
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
                throw new ConfigurationException("FORGE_API_TOKEN is too short: use at least " + MIN_TOKEN_LENGTH
                        + " characters (e.g. openssl rand -hex 32)");
            }
            if (!token.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
                throw new ConfigurationException("FORGE_API_TOKEN must be printable ASCII without spaces");
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
                Settings.integer(env, "FORGE_SANDBOX_NETWORK", 0, 0, 1) == 1,
                Settings.integer(env, "FORGE_SANDBOX_UID", SandboxUser.NOBODY, 1, Integer.MAX_VALUE - 1),
                new WorkspaceQuota(Settings.integer(env, "FORGE_WORKSPACE_MAX_FILES", WorkspaceQuota.DEFAULT.maxFiles(), 1, 10_000_000),
                        Settings.wholeNumber(env, "FORGE_WORKSPACE_MAX_BYTES", WorkspaceQuota.DEFAULT.maxBytes(), 1024, Long.MAX_VALUE)));
        return new SecuritySettings(token, origins(env.get("FORGE_CORS_ORIGINS")), AllowedHosts.parse(env.get(AllowedHosts.VARIABLE)),
                commands, limits, sandbox, connections(env), web(env));
    }

    /** The same settings with another API token ({@code null} for none). */
    /** What the HTTP doors check: the token, the origins, the host names, the connections. */
    public HttpSettings http() {
        return new HttpSettings(apiToken, corsOrigins, allowedHosts, connections);
    }

    public SecuritySettings withApiToken(String token) {
        return new SecuritySettings(token, corsOrigins, allowedHosts, commands, limits, sandbox, connections, web);
    }

    public SecuritySettings withCommands(CommandPolicy policy, ProcessRunner.Limits commandLimits) {
        return new SecuritySettings(apiToken, corsOrigins, allowedHosts, policy, commandLimits, sandbox, connections, web);
    }

    public SecuritySettings withSandbox(SandboxSettings settings) {
        return new SecuritySettings(apiToken, corsOrigins, allowedHosts, commands, limits, settings, connections, web);
    }

    public SecuritySettings withCorsOrigins(List<String> origins) {
        return new SecuritySettings(apiToken, origins, allowedHosts, commands, limits, sandbox, connections, web);
    }

    public SecuritySettings withAllowedHosts(AllowedHosts hosts) {
        return new SecuritySettings(apiToken, corsOrigins, hosts, commands, limits, sandbox, connections, web);
    }

    /** The same settings with another web fetcher setting ({@code web get}). */
    public SecuritySettings withWeb(WebSettings webSettings) {
        return new SecuritySettings(apiToken, corsOrigins, allowedHosts, commands, limits, sandbox, connections, webSettings);
    }

    public SecuritySettings withConnections(ConnectionLimits connectionLimits) {
        return new SecuritySettings(apiToken, corsOrigins, allowedHosts, commands, limits, sandbox, connectionLimits, web);
    }

    /**
     * Refuses to serve on an address other machines can reach without a token, unless people sign in
     * ({@code FORGE_OIDC_ISSUER}).
     *
     * @throws ConfigurationException naming {@code FORGE_HOST} and {@code FORGE_API_TOKEN}
     */
    public void checkBinding(String host, boolean peopleSignIn) {
        if (apiToken != null || peopleSignIn || AllowedHosts.isLoopback(host)) {
            return;
        }
        throw new ConfigurationException("FORGE_HOST=" + host + " is not a loopback address and FORGE_API_TOKEN is not set: "
                + "anyone who can reach the server could use it and run its commands. Set FORGE_API_TOKEN (at least "
                + MIN_TOKEN_LENGTH + " characters, e.g. `openssl rand -hex 32`), or bind to 127.0.0.1");
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
                throw new ConfigurationException("FORGE_CORS_ORIGINS: '" + origin + "' is not an origin: write scheme://host[:port],"
                        + " e.g. https://app.example.com (no path, no wildcard)");
            }
        }
        return origins.stream().map(o -> o.toLowerCase(Locale.ROOT)).toList();
    }

    /** The settings with the token hidden, for logs. */
    private static ConnectionLimits connections(Map<String, String> env) {
        int max = Settings.integer(env, "FORGE_MAX_CONNECTIONS", ConnectionLimits.DEFAULT_MAX_CONNECTIONS, 1, ConnectionLimits.MOST_CONNECTIONS);
        return new ConnectionLimits(Duration.ofSeconds(Settings.integer(env, "FORGE_IDLE_TIMEOUT_SECONDS",
                (int) ConnectionLimits.DEFAULT_IDLE_TIMEOUT.toSeconds(), 1, 3600)),
                Settings.integer(env, "FORGE_MAX_CONNECTIONS_PER_CLIENT", Math.min(ConnectionLimits.DEFAULT_MAX_PER_CLIENT, max), 1, max), max);
    }

    @Override
    public String toString() {
        return "SecuritySettings[apiToken=" + (apiToken == null ? "none" : "(set)") + ", corsOrigins=" + corsOrigins
                + ", allowedHosts=" + allowedHosts + ", allowCommands=" + commands + ", limits=" + limits + ", sandbox=" + sandbox
                + ", connections=" + connections + "]";
    }

    /** {@code FORGE_ALLOW_WEB} and {@code FORGE_WEB_HOSTS}. */
    private static WebSettings web(Map<String, String> env) {
        boolean enabled = Settings.integer(env, "FORGE_ALLOW_WEB", 0, 0, 1) == 1;
        String list = env.getOrDefault("FORGE_WEB_HOSTS", "");
        List<String> hosts = Arrays.stream(list.split(",")).map(String::strip).filter(h -> !h.isEmpty())
                .map(h -> h.toLowerCase(Locale.ROOT)).toList();
        for (String host : hosts) {
            if (!host.matches("[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*")) {
                throw new ConfigurationException("FORGE_WEB_HOSTS: '" + host + "' is not a host name (list names like example.com,"
                        + " separated by commas)");
            }
        }
        return new WebSettings(enabled, hosts, 0);
    }
}
