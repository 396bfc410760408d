package dev.skillforge.server.http;

import org.eclipse.jetty.io.Connection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Closes a new connection at once when its client already holds the most connections one client
 * may ({@code FORGE_MAX_CONNECTIONS_PER_CLIENT}), so that one client cannot take all of the
 * server's connections. A client is an IPv4 address, or an IPv6 /64 network (one machine commonly
 * holds a whole /64). Clients behind one proxy or NAT, and every client of a reverse proxy on this
 * machine, share one address and so share the limit.
 */
final class ClientConnectionLimit implements Connection.Listener {

    private static final Logger LOG = LoggerFactory.getLogger(ClientConnectionLimit.class);

    private final int max;
    private final Map<Connection, String> clientOf = new ConcurrentHashMap<>();
    private final Map<String, Integer> open = new ConcurrentHashMap<>();
    /** Clients being refused now: logged once when they reach the limit, again only after they went below it. */
    private final Set<String> refusing = ConcurrentHashMap.newKeySet();

    ClientConnectionLimit(int max) {
        this.max = max;
    }

    @Override
    public void onOpened(Connection connection) {
        String client = client(connection.getEndPoint().getRemoteSocketAddress());
        clientOf.put(connection, client);
        if (open.merge(client, 1, Integer::sum) > max) {
            if (refusing.add(client)) {
                LOG.warn("Refusing connections from {}: it holds {} already, the most FORGE_MAX_CONNECTIONS_PER_CLIENT allows", client, max);
            }
            connection.getEndPoint().close();
        }
    }

    @Override
    public void onClosed(Connection connection) {
        String client = clientOf.remove(connection);
        if (client == null) {
            return;
        }
        Integer left = open.computeIfPresent(client, (key, count) -> count == 1 ? null : count - 1);
        if (left == null || left < max) {
            refusing.remove(client);
        }
    }

    /** The client a remote address counts as: the IPv4 address, the IPv6 /64 network, or "local" (not IP). */
    static String client(SocketAddress remote) {
        if (!(remote instanceof InetSocketAddress inet) || inet.getAddress() == null) {
            return "local";
        }
        if (inet.getAddress() instanceof Inet6Address ipv6) {
            byte[] bytes = ipv6.getAddress();
            StringJoiner prefix = new StringJoiner(":", "", "::/64");
            for (int i = 0; i < 8; i += 2) {
                prefix.add(Integer.toHexString((bytes[i] & 0xff) << 8 | bytes[i + 1] & 0xff));
            }
            return prefix.toString();
        }
        return inet.getAddress().getHostAddress();
    }
}
