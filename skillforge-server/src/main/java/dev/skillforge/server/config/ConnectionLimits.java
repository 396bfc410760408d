package dev.skillforge.server.config;

import dev.skillforge.server.error.ConfigurationException;
import java.time.Duration;
import java.util.Map;

/**
 * How long a connection may wait and how many one client may hold, so that clients that connect
 * and send nothing useful (nothing, blank lines, headers a byte at a time) cannot shut others out.
 *
 * @param idleTimeout  {@code FORGE_IDLE_TIMEOUT_SECONDS}: a connection that sends or takes nothing for
 *                     this long is closed
 * @param maxPerClient {@code FORGE_MAX_CONNECTIONS_PER_CLIENT}: connections open at once from one client
 *                     address (an IPv4 address, or an IPv6 /64); one more is closed at once. Clients
 *                     behind one proxy or NAT share an address
 */
public record ConnectionLimits(Duration idleTimeout, int maxPerClient) {

    /** Connections open at once, from all clients together; further ones wait to be accepted. */
    public static final int MAX_CONNECTIONS = 1000;
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(30);
    public static final int DEFAULT_MAX_PER_CLIENT = 100;
    /** A request's line and headers must be complete within this (or the idle timeout, if shorter). */
    public static final Duration MAX_HEADER_TIME = Duration.ofSeconds(10);

    public static final ConnectionLimits DEFAULT = new ConnectionLimits(DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_PER_CLIENT);

    public ConnectionLimits {
        if (idleTimeout.isNegative() || idleTimeout.isZero()) {
            throw new ConfigurationException("the idle timeout must be positive, was " + idleTimeout);
        }
        if (maxPerClient < 1 || maxPerClient > MAX_CONNECTIONS) {
            throw new ConfigurationException("connections per client must be 1 to " + MAX_CONNECTIONS + ", was " + maxPerClient);
        }
    }

    static ConnectionLimits from(Map<String, String> env) {
        return new ConnectionLimits(
                Duration.ofSeconds(Settings.integer(env, "FORGE_IDLE_TIMEOUT_SECONDS", (int) DEFAULT_IDLE_TIMEOUT.toSeconds(), 1, 3600)),
                Settings.integer(env, "FORGE_MAX_CONNECTIONS_PER_CLIENT", DEFAULT_MAX_PER_CLIENT, 1, MAX_CONNECTIONS));
    }

    /**
     * How long a connection may take, from its opening or the end of its previous response, until the
     * next request's line and headers are complete: {@link #MAX_HEADER_TIME}, or the idle timeout if
     * shorter. Blank lines, which HTTP lets a client send before a request, do not extend it.
     */
    public Duration headerTimeout() {
        return idleTimeout.compareTo(MAX_HEADER_TIME) < 0 ? idleTimeout : MAX_HEADER_TIME;
    }

    public ConnectionLimits withIdleTimeout(Duration timeout) {
        return new ConnectionLimits(timeout, maxPerClient);
    }

    public ConnectionLimits withMaxPerClient(int max) {
        return new ConnectionLimits(idleTimeout, max);
    }
}
