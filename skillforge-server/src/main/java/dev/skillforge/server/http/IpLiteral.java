package dev.skillforge.server.http;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * IP address literals, read as text and never resolved (no name service is asked, ever).
 *
 * <p>Literals are the dotted-quad IPv4 form (four decimal numbers 0–255, without leading zeros) and
 * the IPv6 forms of RFC 4291 (one to four hex digits a group, at most one {@code ::}, an optional
 * trailing dotted quad), bare or in brackets, with an optional zone: {@code %eth0} bare, or
 * {@code %25eth0} in brackets as a URI writes it (RFC 6874). Anything else is not a literal:
 * names, and the legacy IPv4 spellings a C resolver accepts ({@code 127.1}, {@code 2130706433},
 * {@code 0x7f.1}, {@code 0177.0.0.1}), which browsers rewrite to the dotted quad before sending them.
 */
final class IpLiteral {

    private static final String OCTET = "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])";
    private static final Pattern IPV4 = Pattern.compile(OCTET + "(\\." + OCTET + "){3}");
    private static final Pattern HEX_GROUP = Pattern.compile("[0-9A-Fa-f]{1,4}");
    private static final Pattern ZONE = Pattern.compile("[A-Za-z0-9._~-]+");

    private IpLiteral() {
    }

    /** The address {@code text} spells, or empty when it is not an IP literal (a name, or malformed). */
    static Optional<InetAddress> parse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        if (text.startsWith("[")) {
            if (!text.endsWith("]")) {
                return Optional.empty();
            }
            String inside = text.substring(1, text.length() - 1);
            int zone = inside.indexOf('%');
            if (zone >= 0 && !(inside.startsWith("%25", zone) && ZONE.matcher(inside.substring(zone + 3)).matches())) {
                return Optional.empty();
            }
            return ipv6(zone < 0 ? inside : inside.substring(0, zone));
        }
        if (text.contains(":")) {
            int zone = text.indexOf('%');
            if (zone >= 0 && !ZONE.matcher(text.substring(zone + 1)).matches()) {
                return Optional.empty();
            }
            return ipv6(zone < 0 ? text : text.substring(0, zone));
        }
        byte[] ipv4 = ipv4(text);
        return ipv4 == null ? Optional.empty() : Optional.of(address(ipv4));
    }

    private static byte[] ipv4(String text) {
        if (!IPV4.matcher(text).matches()) {
            return null;
        }
        String[] parts = text.split("\\.");
        byte[] bytes = new byte[4];
        for (int i = 0; i < 4; i++) {
            bytes[i] = (byte) Integer.parseInt(parts[i]);
        }
        return bytes;
    }

    private static Optional<InetAddress> ipv6(String text) {
        int gap = text.indexOf("::");
        if (gap >= 0 && text.indexOf("::", gap + 1) >= 0) {
            return Optional.empty(); // "::" at most once
        }
        byte[] head = gap < 0 ? groups(text, true) : groups(text.substring(0, gap), false);
        byte[] tail = gap < 0 ? new byte[0] : groups(text.substring(gap + 2), true);
        if (head == null || tail == null) {
            return Optional.empty();
        }
        int given = head.length + tail.length;
        if (gap < 0 ? given != 16 : given > 14) {
            return Optional.empty(); // eight groups without "::"; "::" stands for one group at least
        }
        byte[] bytes = new byte[16];
        System.arraycopy(head, 0, bytes, 0, head.length);
        System.arraycopy(tail, 0, bytes, 16 - tail.length, tail.length);
        return Optional.of(address(bytes));
    }

    /** Colon-separated hex groups, two bytes each; the last may be a dotted quad where {@code quadAllowed}. */
    private static byte[] groups(String text, boolean quadAllowed) {
        if (text.isEmpty()) {
            return new byte[0];
        }
        String[] parts = text.split(":", -1);
        byte[] bytes = new byte[parts.length * 2 + 2];
        int length = 0;
        for (int i = 0; i < parts.length; i++) {
            String part = parts[i];
            if (HEX_GROUP.matcher(part).matches()) {
                int group = Integer.parseInt(part, 16);
                bytes[length++] = (byte) (group >> 8);
                bytes[length++] = (byte) group;
            } else if (quadAllowed && i == parts.length - 1 && ipv4(part) != null) {
                System.arraycopy(ipv4(part), 0, bytes, length, 4);
                length += 4;
            } else {
                return null;
            }
        }
        return Arrays.copyOf(bytes, length);
    }

    /** Built from bytes: {@link InetAddress#getByAddress(byte[])} looks nothing up (IPv4-mapped IPv6 comes back as IPv4). */
    private static InetAddress address(byte[] bytes) {
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("4 or 16 bytes are always an address", e);
        }
    }
}
