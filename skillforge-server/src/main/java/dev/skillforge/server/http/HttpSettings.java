package dev.skillforge.server.http;

import java.util.List;

/**
 * What the HTTP doors check before any route ({@link HttpSecurity}), read from {@code FORGE_*} variables with the
 * other security settings.
 *
 * @param apiToken     the bearer token every API call and the page need, or {@code null} for none
 * @param corsOrigins  the origins allowed to call the API from a browser (none: no CORS headers at all)
 * @param allowedHosts the {@code Host} names answered besides loopback addresses and {@code localhost}
 * @param connections  how long and how many connections a client, and all of them, may hold
 */
public record HttpSettings(String apiToken, List<String> corsOrigins, AllowedHosts allowedHosts, ConnectionLimits connections) {

    public HttpSettings {
        corsOrigins = List.copyOf(corsOrigins);
    }
}
