package dev.skillforge.server.config;

import dev.skillforge.server.error.ConfigurationException;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code web get} command, which lets the agent read a web page itself: off unless the operator turns it on.
 *
 * @param enabled       {@code FORGE_ALLOW_WEB=1}
 * @param hosts         {@code FORGE_WEB_HOSTS}: the host names it may fetch (each also with its subdomains); empty: any
 *                      public host
 * @param loopbackPort  a test switch, never read from the environment: pages on 127.0.0.1 at this one port may be fetched
 *                      (tests serve their pages there); 0 everywhere else
 */
public record WebSettings(boolean enabled, List<String> hosts, int loopbackPort) {

    public static final WebSettings OFF = new WebSettings(false, List.of(), 0);

    public WebSettings {
        hosts = List.copyOf(hosts);
    }

    public static WebSettings from(Map<String, String> env) {
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

    /** Fetching on, and pages at 127.0.0.1:{@code port} allowed: for tests, which serve their pages on loopback. */
    public static WebSettings forTestsOnLoopbackPort(int port) {
        return new WebSettings(true, List.of(), port);
    }

    /** Whether {@code host} (lowercase) is on the list, itself or as a subdomain of a listed name; any host when there is no list. */
    public boolean allowsHost(String host) {
        return hosts.isEmpty() || hosts.stream().anyMatch(h -> host.equals(h) || host.endsWith("." + h));
    }
}
