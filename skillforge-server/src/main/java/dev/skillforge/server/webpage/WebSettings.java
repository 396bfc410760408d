package dev.skillforge.server.webpage;

import java.util.List;

/**
 * The {@code web get} command, which lets the agent read a web page itself: off unless the operator turns it on.
 *
 * @param enabled       {@code FORGE_ALLOW_WEB=1} (read with the other settings, in {@code config})
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

    /** Fetching on, and pages at 127.0.0.1:{@code port} allowed: for tests, which serve their pages on loopback. */
    public static WebSettings forTestsOnLoopbackPort(int port) {
        return new WebSettings(true, List.of(), port);
    }

    /** Whether {@code host} (lowercase) is on the list, itself or as a subdomain of a listed name; any host when there is no list. */
    public boolean allowsHost(String host) {
        return hosts.isEmpty() || hosts.stream().anyMatch(h -> host.equals(h) || host.endsWith("." + h));
    }
}
