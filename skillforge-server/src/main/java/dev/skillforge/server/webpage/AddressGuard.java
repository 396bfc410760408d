package dev.skillforge.server.webpage;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;

/**
 * Which addresses the web fetcher may connect to: public unicast ones only. Checked on the addresses a name
 * resolves to, at the moment of connecting (the fetcher connects to exactly the addresses checked), for every
 * request of a redirect chain: a page cannot lead the server to itself, its network or a cloud metadata service.
 */
final class AddressGuard {

    private AddressGuard() {
    }

    /** Why {@code address} is refused, or {@code null} when it is a public address. */
    static String refusal(InetAddress address) {
        if (address.isLoopbackAddress()) {
            return "a loopback address";
        }
        if (address.isAnyLocalAddress()) {
            return "the unspecified address";
        }
        if (address.isLinkLocalAddress()) {
            return "a link-local address (cloud metadata services live there)";
        }
        if (address.isSiteLocalAddress()) {
            return "a private address";
        }
        if (address.isMulticastAddress()) {
            return "a multicast address";
        }
        byte[] b = address.getAddress();
        if (address instanceof Inet4Address) {
            int first = b[0] & 0xFF;
            int second = b[1] & 0xFF;
            if (first == 0 || first >= 240 || (first == 100 && second >= 64 && second < 128) || (first == 192 && second == 0 && (b[2] & 0xFF) == 0)
                    || (first == 198 && (second == 18 || second == 19))) {
                return "a reserved or shared address";
            }
        } else if (address instanceof Inet6Address) {
            int first = b[0] & 0xFF;
            if ((first & 0xFE) == 0xFC) {
                return "a private (unique local) address";
            }
            if (isIpv4Embedded(b)) {
                try {
                    String inner = refusal(InetAddress.getByAddress(new byte[]{b[12], b[13], b[14], b[15]}));
                    return inner == null ? null : inner + " inside an IPv6 address";
                } catch (java.net.UnknownHostException impossible) {
                    return "an unreadable address";
                }
            }
            if ((first == 0x20 && (b[1] & 0xFF) == 0x02) || (first == 0x20 && (b[1] & 0xFF) == 0x01 && b[2] == 0 && b[3] == 0)) {
                return "a tunnelling address (6to4 or Teredo)";
            }
        }
        return null;
    }

    /** ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible) and 64:ff9b::a.b.c.d (NAT64): the IPv4 address inside is what counts. */
    private static boolean isIpv4Embedded(byte[] b) {
        boolean zeros80 = true;
        for (int i = 0; i < 10; i++) {
            zeros80 &= b[i] == 0;
        }
        boolean mapped = zeros80 && (b[10] & 0xFF) == 0xFF && (b[11] & 0xFF) == 0xFF;
        boolean compatible = zeros80 && b[10] == 0 && b[11] == 0;
        boolean nat64 = (b[0] & 0xFF) == 0x00 && (b[1] & 0xFF) == 0x64 && (b[2] & 0xFF) == 0xFF && (b[3] & 0xFF) == 0x9B;
        return mapped || compatible || nat64;
    }
}
