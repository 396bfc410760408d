package dev.skillforge.server.http;

import dev.skillforge.server.error.ConfigurationException;
import java.time.Duration;

/**
 * How long a connection may wait and how many one client may hold, so that clients that connect
 * and send nothing useful (nothing, blank lines, headers a byte at a time) cannot shut others out.
 *
 * @param idleTimeout  {@code FORGE_IDLE_TIMEOUT_SECONDS}: a connection that sends or takes nothing for
 *                     this long is closed
 * @param maxPerClient {@code FORGE_MAX_CONNECTIONS_PER_CLIENT}: connections open at once from one client
 *                     address (an IPv4 address, or an IPv6 /64); one more is closed at once. Clients
 *                     behind one proxy or NAT share an address
 * @param max          {@code FORGE_MAX_CONNECTIONS}: connections open at once from all clients together; at it,
 *                     the one that waited longest for a request is closed to make room
 */
public record ConnectionLimits(Duration idleTimeout, int maxPerClient, int max) {

    /**
     * The default of {@code FORGE_MAX_CONNECTIONS}: twice the thousand turns the server is measured at, since a page
     * holds two (its change stream and its turn), and a thousand was hit by the load benchmark's own thousand
     * clients, closing their idle keep-alive connections under them.
     */
    public static final int DEFAULT_MAX_CONNECTIONS = 2000;
    /** The most {@code FORGE_MAX_CONNECTIONS} may be. */
    public static final int MOST_CONNECTIONS = 100_000;
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(30);
    public static final int DEFAULT_MAX_PER_CLIENT = 100;
    /** A request's line and headers must be complete within this (or the idle timeout, if shorter). */
    public static final Duration MAX_HEADER_TIME = Duration.ofSeconds(10);

    public static final ConnectionLimits DEFAULT = new ConnectionLimits(DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_PER_CLIENT, DEFAULT_MAX_CONNECTIONS);

    public ConnectionLimits {
        if (idleTimeout.isNegative() || idleTimeout.isZero()) {
            throw new ConfigurationException("the idle timeout must be positive, was " + idleTimeout);
        }
        if (max < 1 || max > MOST_CONNECTIONS) {
            throw new ConfigurationException("connections must be 1 to " + MOST_CONNECTIONS + ", was " + max);
        }
        if (maxPerClient < 1 || maxPerClient > max) {
            throw new ConfigurationException("connections per client must be 1 to " + max + " (FORGE_MAX_CONNECTIONS), was " + maxPerClient);
        }
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
        return new ConnectionLimits(timeout, maxPerClient, max);
    }

    public ConnectionLimits withMaxPerClient(int max) {
        return new ConnectionLimits(idleTimeout, max, this.max);
    }

    public ConnectionLimits withMax(int connections) {
        return new ConnectionLimits(idleTimeout, Math.min(maxPerClient, connections), connections);
    }
}
