package dev.skillforge.server.webpage;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * Which addresses the web fetcher may connect to: public unicast ones only. Checked on the addresses a name
 * resolves to, at the moment of connecting (the fetcher connects to exactly the addresses checked), for every
 * request of a redirect chain: a page cannot lead the server to itself, its network or a cloud metadata service.
 * What is refused follows IANA's special-purpose address registries (IPv4 and IPv6): every range there that is
 * not globally reachable, plus, for IPv6, everything outside global unicast ({@code 2000::/3}).
 */
final class AddressGuard {

    /** A block of addresses and what it is, as the refusal says it. */
    private record Block(byte[] prefix, int bits, String what) {
        static Block of(String cidr, String what) {
            int slash = cidr.indexOf('/');
            try {
                return new Block(InetAddress.getByName(cidr.substring(0, slash)).getAddress(), Integer.parseInt(cidr.substring(slash + 1)), what);
            } catch (UnknownHostException impossible) {
                throw new IllegalArgumentException("not an address literal: " + cidr, impossible);
            }
        }

        boolean contains(byte[] address) {
            if (address.length != prefix.length) {
                return false;
            }
            int whole = bits / 8;
            for (int i = 0; i < whole; i++) {
                if (address[i] != prefix[i]) {
                    return false;
                }
            }
            int rest = bits % 8;
            return rest == 0 || ((address[whole] ^ prefix[whole]) & (0xFF << (8 - rest)) & 0xFF) == 0;
        }
    }

    private static final String RESERVED = "a reserved or shared address";
    private static final String DOCUMENTATION = "a documentation address (no real host has it)";

    private static final List<Block> IPV4 = List.of(
            Block.of("0.0.0.0/8", "the unspecified address or this network"),
            Block.of("10.0.0.0/8", "a private address"),
            Block.of("100.64.0.0/10", RESERVED),
            Block.of("127.0.0.0/8", "a loopback address"),
            Block.of("169.254.0.0/16", "a link-local address (cloud metadata services live there)"),
            Block.of("172.16.0.0/12", "a private address"),
            Block.of("192.0.0.0/24", RESERVED),
            Block.of("192.0.2.0/24", DOCUMENTATION),
            Block.of("192.88.99.0/24", RESERVED),
            Block.of("192.168.0.0/16", "a private address"),
            Block.of("198.18.0.0/15", RESERVED),
            Block.of("198.51.100.0/24", DOCUMENTATION),
            Block.of("203.0.113.0/24", DOCUMENTATION),
            Block.of("224.0.0.0/4", "a multicast address"),
            Block.of("240.0.0.0/4", RESERVED));

    /** Checked after the IPv4-embedding forms, in order: the first block that holds the address names it. */
    private static final List<Block> IPV6 = List.of(
            Block.of("::1/128", "a loopback address"),
            Block.of("::/128", "the unspecified address"),
            Block.of("fe80::/10", "a link-local address (cloud metadata services live there)"),
            Block.of("fc00::/7", "a private (unique local) address"),
            Block.of("fec0::/10", "a private (site-local) address"),
            Block.of("ff00::/8", "a multicast address"),
            Block.of("2001::/32", "a tunnelling address (6to4 or Teredo)"),
            Block.of("2002::/16", "a tunnelling address (6to4 or Teredo)"),
            Block.of("2001:db8::/32", DOCUMENTATION),
            Block.of("3fff::/20", DOCUMENTATION),
            Block.of("2001::/23", RESERVED),
            Block.of("2000::/3", null), // global unicast: allowed unless a block above holds it
            Block.of("::/0", RESERVED));

    private AddressGuard() {
    }

    /** Why {@code address} is refused, or {@code null} when it is a public address. */
    static String refusal(InetAddress address) {
        byte[] b = address.getAddress();
        if (address instanceof Inet4Address) {
            return first(IPV4, b);
        }
        byte[] embedded = ipv4Inside(b);
        if (embedded != null) {
            String inner = first(IPV4, embedded);
            return inner == null ? null : inner + " inside an IPv6 address";
        }
        return first(IPV6, b);
    }

    private static String first(List<Block> blocks, byte[] address) {
        for (Block block : blocks) {
            if (block.contains(address)) {
                return block.what();
            }
        }
        return null;
    }

    /**
     * The IPv4 address inside ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible, but not :: and ::1) and 64:ff9b::a.b.c.d
     * (the well-known NAT64 prefix): that address is what a connection reaches. {@code null} for any other address.
     */
    private static byte[] ipv4Inside(byte[] b) {
        boolean zeros80 = true;
        for (int i = 0; i < 10; i++) {
            zeros80 &= b[i] == 0;
        }
        boolean mapped = zeros80 && (b[10] & 0xFF) == 0xFF && (b[11] & 0xFF) == 0xFF;
        boolean compatible = zeros80 && b[10] == 0 && b[11] == 0 && !(b[12] == 0 && b[13] == 0 && b[14] == 0 && (b[15] & 0xFE) == 0);
        boolean nat64 = b[0] == 0x00 && b[1] == 0x64 && (b[2] & 0xFF) == 0xFF && (b[3] & 0xFF) == 0x9B;
        for (int i = 4; nat64 && i < 12; i++) {
            nat64 = b[i] == 0;
        }
        return mapped || compatible || nat64 ? new byte[]{b[12], b[13], b[14], b[15]} : null;
    }
}
