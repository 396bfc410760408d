package dev.skillforge.server.http;

import dev.skillforge.testkit.HostileDns;
import org.junit.jupiter.api.BeforeAll;
import dev.skillforge.server.config.SecuritySettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Host check without DNS (regression: names made of hex letters, digits and dots were taken for
 * addresses and resolved, so a site whose DNS answered 127.0.0.1 for such a name was served). A
 * corpus of look-alike Host headers, each with its verdict, checked while the test JVM's name
 * service ({@link HostileDns}) answers 127.0.0.1 for every name in it: a check that resolved
 * anything would let them through, and the lookups would show.
 */
class AllowedHostsTest {

    /** Answered: loopback literals (any spelling of 127.0.0.0/8, ::1 and ::ffff:127.x), localhost, any port; no Host at all. */
    static final List<String> ALLOWED = List.of(
            "127.0.0.1", "127.0.0.1:8080", "127.0.0.2", "127.255.255.254:1", " 127.0.0.1 ",
            "localhost", "localhost:8080", "LOCALHOST", "LocalHost:8080", "localhost:",
            "[::1]", "[::1]:8080", "[::1]:", "[0:0:0:0:0:0:0:1]", "[0000::0001]", "[::1%25lo]",
            "[::ffff:127.0.0.1]", "[::FFFF:127.0.0.1]:80", "[::ffff:7f00:1]", "[::ffff:127.1.2.3]",
            "");

    /** Refused (403): every name but localhost, every malformed or legacy spelling, every other address. */
    static final List<String> REFUSED = List.of(
            // names made of hex letters, digits and dots: the old check resolved them
            "deadbeef", "DEADBEEF", "deadbeef:8080", "cafe", "1e100", "1e100:80", "face.b00c", "abc.def", "c0ffee.be",
            // legacy IPv4 spellings (browsers send the dotted quad instead)
            "127.1", "127.0.1", "2130706433", "2130706433:80", "0x7f.1", "0x7f000001", "0177.0.0.1", "127.000.000.001",
            "127.0.0.01", "017700000001", "127.0.0.256", "256.0.0.1", "127.0.0.1.1",
            // names that look like loopback
            "127.0.0.1.nip.io", "127-0-0-1.nip.io", "127.0.0.1.", "localhost.", "localhost.:8080", "LOCALHOST.",
            "localhost.evil.com", "evil.localhost", "localhost.localdomain", "localtest.me", "loca1host", "evil.com",
            // Unicode and IDN: browsers map these to ASCII before sending; raw, they are nobody's name
            "lоcalhost", "ｌｏｃａｌｈｏｓｔ", "１２７.０.０.１", "127。0。0。1", "localhost。", "xn--lcalhost-9wg",
            // ports and syntax
            "127.0.0.1:abc", "127.0.0.1:123456", "127.0.0.1:80:80", "localhost:-1", "127.0.0.1 :80", "user@localhost",
            "localhost/", "localhost,evil.com", "%6cocalhost", "localhost\u0000", "*", ".", ":", ":80", "[]", "[]:80",
            // IPv6: unbracketed, malformed, not loopback
            "::1", "::1:8080", "[::1", "::1]", "[::1]x", "[::1]:abc", "[[::1]]", "[127.0.0.1]", "[::1%]", "[::1%eth0]",
            "[::1%25]", "[1:2:3:4:5:6:7:8:9]", "[1::2::3]", "[:::1]", "[12345::1]", "[g::1]", "[::]", "[::ffff:10.0.0.1]",
            "[::127.0.0.1]", "[fe80::1%25eth0]", "[2001:db8::1]",
            // other addresses
            "0.0.0.0", "10.0.0.1", "192.168.1.10", "169.254.169.254");

    @BeforeAll
    static void everyNameResolvesToLoopback() {
        List<String> names = new ArrayList<>();
        Stream.concat(ALLOWED.stream(), REFUSED.stream()).forEach(header -> {
            names.add(header.strip());
            int colon = header.lastIndexOf(':');
            names.add((colon > 0 ? header.substring(0, colon) : header).strip());
        });
        HostileDns.poison(names);
    }

    static Stream<String> allowed() {
        return ALLOWED.stream();
    }

    static Stream<String> refused() {
        return REFUSED.stream();
    }

    @ParameterizedTest
    @MethodSource("allowed")
    void answered(String host) {
        assertThat(AllowedHosts.loopbackOnly().allows(host)).as("Host: %s", host).isTrue();
    }

    @ParameterizedTest
    @MethodSource("refused")
    void refused(String host) {
        assertThat(AllowedHosts.loopbackOnly().allows(host)).as("Host: %s", host).isFalse();
    }

    @Test
    void aMissingHostIsAnswered() {
        assertThat(AllowedHosts.loopbackOnly().allows(null)).isTrue(); // HTTP/1.0: not a browser
    }

    @Test
    void noCheckLooksAnythingUp() throws Exception {
        // The name service is hostile: what the old check did with "deadbeef" (resolve it) ends at loopback.
        assertThat(InetAddress.getByName("deadbeef").isLoopbackAddress()).isTrue();
        int before = HostileDns.lookups().size();
        AllowedHosts configured = AllowedHosts.parse("forge.example.com");
        Stream.concat(ALLOWED.stream(), REFUSED.stream()).forEach(host -> {
            configured.allows(host);
            AllowedHosts.isLoopback(host); // what FORGE_HOST is checked with
        });
        List<String> lookups = HostileDns.lookups();
        assertThat(lookups.subList(before, lookups.size())).isEmpty();
    }

    @Test
    void theHostsOfForgeAllowedHostsAreAnsweredAndNothingLikeThem() {
        AllowedHosts hosts = SecuritySettings.from(Map.of(AllowedHosts.VARIABLE, "forge.example.com, 192.168.1.5,[fd00::5]"))
                .allowedHosts();
        for (String host : List.of("forge.example.com", "FORGE.example.COM:443", "192.168.1.5:8080", "[fd00::5]", "[fd00:0:0::5]:80",
                "127.0.0.1", "localhost:8080", "[::1]")) {
            assertThat(hosts.allows(host)).as(host).isTrue();
        }
        for (String host : List.of("forge.example.com.", "x.forge.example.com", "forge.example.com.evil.com", "forge.example.co",
                "forge-example.com", "192.168.1.6", "192.168.1.5.nip.io", "[fd00::6]", "fd00::5", "example.com", "deadbeef")) {
            assertThat(hosts.allows(host)).as(host).isFalse();
        }
    }

    @Test
    void forgeAllowedHostsTakesNamesAsBrowsersSendThemAndRefusesAnythingElse() {
        assertThat(AllowedHosts.parse(" Forge.Example.com ,,xn--caf-dma.example, 10.0.0.5, fd00::5, localhost").toString())
                .isEqualTo("[forge.example.com, localhost, xn--caf-dma.example, 10.0.0.5, fd00:0:0:0:0:0:0:5]");
        assertThat(AllowedHosts.parse(null)).isEqualTo(AllowedHosts.loopbackOnly());
        assertThat(AllowedHosts.parse("")).isEqualTo(AllowedHosts.loopbackOnly());
        for (String wrong : List.of("*.example.com", "https://forge.example.com", "forge.example.com:8080", "forge.example.com.",
                "forge.example.com/", "127.1", "2130706433", "0x7f.1", "example.123", "café.example", "exa mple.com", "-bad.example",
                "bad-.example", "forge_example.com", "[fd00::5", "a..b", ".example.com", "x".repeat(64) + ".example")) {
            assertThatThrownBy(() -> SecuritySettings.from(Map.of(AllowedHosts.VARIABLE, wrong))).as(wrong)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith(AllowedHosts.VARIABLE + ": '" + wrong.strip() + "' is not a host name or an IP address");
        }
    }

    @Test
    void forgeHostIsLoopbackOnlyForLoopbackLiteralsAndLocalhost() {
        for (String host : List.of("127.0.0.1", "127.0.0.5", "::1", "[::1]", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1", "localhost", "LOCALHOST")) {
            assertThat(AllowedHosts.isLoopback(host)).as(host).isTrue();
        }
        for (String host : List.of("0.0.0.0", "::", "deadbeef", "1e100", "127.1", "2130706433", "localhost.", "127.0.0.1.nip.io",
                "evil.localhost", "10.0.0.1", "")) {
            assertThat(AllowedHosts.isLoopback(host)).as(host).isFalse();
            assertThatThrownBy(() -> SecuritySettings.defaults().checkBinding(host, false)).as(host)
                    .hasMessageContaining("is not a loopback address and FORGE_API_TOKEN is not set");
        }
        assertThat(AllowedHosts.isLoopback(null)).isFalse();
    }
}
