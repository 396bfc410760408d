package dev.skillforge.server.http;

import dev.skillforge.server.error.ConfigurationException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which {@code Host} headers the server answers when it checks them (always without a token, so a
 * web page cannot reach a loopback server through DNS rebinding; with a token when
 * {@code FORGE_ALLOWED_HOSTS} is set): loopback IP literals ({@code 127.0.0.0/8}, {@code [::1]},
 * {@code [::ffff:127.0.0.1]}), {@code localhost}, and the names and addresses of
 * {@code FORGE_ALLOWED_HOSTS}, with any port. Nothing is ever resolved: a name counts only when it is
 * written here, so a name whose DNS answer changes (or says 127.0.0.1) gains nothing.
 *
 * <p>Refused, among others: {@code localhost.} and {@code foo.localhost} (not every browser and
 * resolver keeps them off the network), the legacy IPv4 spellings ({@code 127.1}, {@code 2130706433};
 * browsers send the dotted quad), names that merely start or end like an address
 * ({@code 127.0.0.1.nip.io}, {@code deadbeef}), non-ASCII names, and anything malformed. A request
 * without a {@code Host} (HTTP/1.0) does not come from a browser and is answered.
 *
 * @param names     {@code FORGE_ALLOWED_HOSTS}' names, in lower case
 * @param addresses {@code FORGE_ALLOWED_HOSTS}' IP literals
 */
public record AllowedHosts(Set<String> names, Set<InetAddress> addresses) {

    public static final String VARIABLE = "FORGE_ALLOWED_HOSTS";

    private static final Pattern LABEL = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");
    /** A last label a browser reads as a number (WHATWG URL: the host is then an IPv4 address or invalid). */
    private static final Pattern NUMERIC_LABEL = Pattern.compile("[0-9]+|0x[0-9a-f]*");
    private static final Pattern PORT = Pattern.compile("[0-9]{0,5}");

    public AllowedHosts {
        names = Set.copyOf(names);
        addresses = Set.copyOf(addresses);
    }

    /** Loopback literals and {@code localhost} only. */
    public static AllowedHosts loopbackOnly() {
        return new AllowedHosts(Set.of(), Set.of());
    }

    /**
     * Reads {@code FORGE_ALLOWED_HOSTS}: host names (as a browser sends them: lower or upper case,
     * punycode for non-ASCII, no trailing dot) and IP literals, comma-separated, without ports.
     *
     * @throws ConfigurationException naming the variable and the entry, for a wildcard, a port, a
     *                                  scheme, a path or anything else that is not a host
     */
    public static AllowedHosts parse(String value) {
        List<String> names = new ArrayList<>();
        List<InetAddress> addresses = new ArrayList<>();
        for (String entry : value == null ? new String[0] : value.split(",")) {
            String host = entry.strip();
            if (host.isEmpty()) {
                continue;
            }
            Optional<InetAddress> literal = IpLiteral.parse(host);
            if (literal.isPresent()) {
                addresses.add(literal.get());
            } else if (isName(host.toLowerCase(Locale.ROOT))) {
                names.add(host.toLowerCase(Locale.ROOT));
            } else {
                throw new ConfigurationException(VARIABLE + ": '" + host + "' is not a host name or an IP address: write names as"
                        + " a browser sends them (forge.example.com, punycode for non-ASCII, no port, no wildcard, no trailing dot),"
                        + " IPv4 as four numbers (192.168.1.5), IPv6 in brackets ([fd00::5])");
            }
        }
        return new AllowedHosts(Set.copyOf(names), Set.copyOf(addresses));
    }

    /** True when nothing is configured: loopback literals and {@code localhost} only. */
    public boolean isLoopbackOnly() {
        return names.isEmpty() && addresses.isEmpty();
    }

    /** True when {@code host} (a bare or bracketed literal, or a name) is this machine: a loopback literal or {@code localhost}. */
    public static boolean isLoopback(String host) {
        if (host == null) {
            return false;
        }
        return IpLiteral.parse(host).map(InetAddress::isLoopbackAddress).orElseGet(() -> host.equalsIgnoreCase("localhost"));
    }

    /**
     * True when a request with this {@code Host} header is answered: {@code host[:port]} or
     * {@code [ipv6][:port]} naming a loopback literal, {@code localhost} or a configured host; or no header at all.
     */
    public boolean allows(String hostHeader) {
        if (hostHeader == null || hostHeader.isEmpty()) {
            return true;
        }
        String host = withoutPort(hostHeader.strip());
        if (host == null) {
            return false;
        }
        Optional<InetAddress> literal = IpLiteral.parse(host);
        if (literal.isPresent()) {
            return literal.get().isLoopbackAddress() || addresses.contains(literal.get());
        }
        if (host.startsWith("[") || !host.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            return false;
        }
        String name = host.toLowerCase(Locale.ROOT);
        return name.equals("localhost") || names.contains(name);
    }

    /** The host part of {@code host[:port]} or {@code [ipv6][:port]}, or null when the port is malformed. */
    private static String withoutPort(String header) {
        int colon;
        if (header.startsWith("[")) {
            int end = header.indexOf(']');
            if (end < 0) {
                return null;
            }
            colon = end + 1 == header.length() ? -1 : end + 1;
            if (colon >= 0 && header.charAt(colon) != ':') {
                return null;
            }
        } else {
            colon = header.indexOf(':');
            if (colon >= 0 && header.indexOf(':', colon + 1) >= 0) {
                return null; // an IPv6 address must be in brackets
            }
        }
        if (colon < 0) {
            return header;
        }
        return PORT.matcher(header.substring(colon + 1)).matches() ? header.substring(0, colon) : null;
    }

    private static boolean isName(String host) {
        if (host.length() > 253) {
            return false;
        }
        String[] labels = host.split("\\.", -1);
        for (String label : labels) {
            if (!LABEL.matcher(label).matches()) {
                return false;
            }
        }
        return !NUMERIC_LABEL.matcher(labels[labels.length - 1]).matches();
    }

    @Override
    public String toString() {
        List<String> all = new ArrayList<>(names.stream().sorted().toList());
        addresses.stream().map(InetAddress::getHostAddress).sorted().forEach(all::add);
        return all.toString();
    }
}
