package dev.skillforge.server.webpage;

import com.sun.net.httpserver.HttpServer;
import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.server.webpage.WebSettings;
import dev.skillforge.testkit.TestDocuments;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The page fetcher against a page server on 127.0.0.1 (the one place the test switch lets it reach) and the
 * hostile-URL corpus: every other loopback, private, link-local or odd address, directly or by redirect, is refused;
 * so are other schemes, user names, giant and slow bodies. The corpus and its results are in SECURITY.md.
 */
class WebFetcherTest {

    private HttpServer pages;
    private int port;
    private WebFetcher fetcher;
    /** A port on loopback that the switch does not open (where the server's own API could be). */
    private int otherPort;

    @BeforeEach
    void start() throws IOException {
        pages = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        port = pages.getAddress().getPort();
        otherPort = port == 65535 ? port - 1 : port + 1;
        page("/page.html", 200, "text/html; charset=utf-8", "<html><head><title>Cold brew</title></head><body><nav>menu</nav>"
                + "<article><h1>Cold brew</h1><p>Steep <em>16 hours</em>.</p><script>alert(1)</script></article></body></html>");
        page("/notes.txt", 200, "text/plain", "plain notes");
        page("/image.png", 200, "image/png", "PNG");
        page("/missing", 404, "text/html", "no");
        page("/quotes.html", 200, "text/html", new String(TestDocuments.nestedHtml("blockquote", 5_000), StandardCharsets.UTF_8));
        page("/elements.html", 200, "text/html", "<html><body>" + "<p><b>x".repeat(200_000) + "</body></html>");
        redirect("/hop", "/page.html");
        redirect("/to-other-port", "http://127.0.0.1:" + otherPort + "/healthz");
        redirect("/to-metadata", "http://169.254.169.254/latest/meta-data/");
        redirect("/to-ipv6-loopback", "http://[::1]:" + port + "/page.html");
        redirect("/to-file", "file:///etc/passwd");
        redirect("/loop", "/loop");
        redirect("/to-unclosed-bracket", "http://[::1");
        redirect("/to-space", "/a page with spaces");
        redirect("/to-no-port", "http://127.0.0.1:99999/");
        pages.createContext("/giant", exchange -> {
            exchange.getResponseHeaders().add("Content-Type", "text/html");
            exchange.sendResponseHeaders(200, 0);
            byte[] chunk = new byte[64 * 1024];
            java.util.Arrays.fill(chunk, (byte) 'a');
            try (OutputStream out = exchange.getResponseBody()) {
                for (int i = 0; i < 64; i++) { // 4 MiB
                    out.write(chunk);
                }
            } catch (IOException closedByTheFetcher) {
                // expected: it stops reading at its limit
            }
        });
        pages.createContext("/slow", exchange -> {
            exchange.getResponseHeaders().add("Content-Type", "text/html");
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write("<p>first".getBytes(StandardCharsets.UTF_8));
                out.flush();
                Thread.sleep(5_000);
            } catch (IOException | InterruptedException gone) {
                // the fetcher gave up
            }
        });
        pages.setExecutor(java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor());
        pages.start();
        fetcher = new WebFetcher(WebSettings.forTestsOnLoopbackPort(port), 2);
    }

    @AfterEach
    void stop() {
        fetcher.close();
        pages.stop(0);
    }

    private String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    @Test
    void readsAPageAsMarkdownWithItsTitleFollowingARedirect() throws Exception {
        WebFetcher.Page page = fetch(url("/hop"));

        assertThat(page.url()).isEqualTo(url("/page.html"));
        assertThat(page.title()).isEqualTo("Cold brew");
        assertThat(page.markdown()).isEqualTo("# Cold brew\n\nSteep *16 hours*.");
        assertThat(fetch(url("/notes.txt")).markdown()).isEqualTo("plain notes");
    }

    @Test
    void hostilePagesGetTheLimitsOfAttachedHtmlWhileTheyAreRead() throws Exception {
        WebFetcher.Page quotes = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> fetch(url("/quotes.html")));
        assertThat(quotes.markdown().lines().filter(line -> line.endsWith("word"))).hasSize(5_000);
        assertThat(quotes.markdown().lines()).allSatisfy(line -> assertThat(line).matches("(> ){1,8}word|>( >){0,7}"));

        assertThatThrownBy(() -> fetch(url("/elements.html"))).isInstanceOf(WebFetcher.FetchException.class)
                .hasMessage(url("/elements.html") + " has more than 200000 HTML elements");
    }

    @Test
    void theHostileUrlCorpusIsRefused() {
        Map<String, String> corpus = new LinkedHashMap<>();
        corpus.put("file:///etc/passwd", "http and https pages only");
        corpus.put("ftp://example.com/x", "http and https pages only");
        corpus.put("javascript:alert(1)", "http and https pages only");
        corpus.put("http://user:secret@127.0.0.1:" + port + "/page.html", "user names or passwords");
        corpus.put("http://127.0.0.1:" + otherPort + "/", "loopback");
        corpus.put("http://localhost:" + otherPort + "/", "loopback");
        corpus.put("http://[::1]:" + port + "/", "loopback");
        corpus.put("http://[::ffff:127.0.0.1]:" + otherPort + "/", "loopback");
        corpus.put("http://[::ffff:169.254.169.254]/", "link-local");
        corpus.put("http://2130706433:" + otherPort + "/", "");
        corpus.put("http://0x7f000001:" + otherPort + "/", "");
        corpus.put("http://0177.0.0.1:" + otherPort + "/", "");
        corpus.put("http://0.0.0.0:" + otherPort + "/", "unspecified");
        corpus.put("http://169.254.169.254/latest/meta-data/", "link-local");
        corpus.put("http://10.0.0.1/", "private");
        corpus.put("http://172.16.0.1/", "private");
        corpus.put("http://192.168.1.1/", "private");
        corpus.put("http://100.64.0.1/", "reserved or shared");
        corpus.put("http://[fd00::1]/", "unique local");
        corpus.put("http://[fe80::1]/", "link-local");
        corpus.put("http://224.0.0.1/", "multicast");
        corpus.put("http://192.0.2.1/", "documentation");
        corpus.put("http://198.51.100.7/", "documentation");
        corpus.put("http://203.0.113.9/", "documentation");
        corpus.put("http://[2001:db8::1]/", "documentation");
        corpus.put("http://[3fff::1]/", "documentation");
        corpus.put("http://192.88.99.1/", "reserved");
        corpus.put("http://[100::1]/", "reserved");
        corpus.put("http://[2001:2::1]/", "reserved");
        corpus.put("http://[5f00::1]/", "reserved");
        corpus.put("http://[64:ff9b:1::808:808]/", "reserved");
        corpus.put("http://[64:ff9b::a00:1]/", "private address inside an IPv6 address");
        corpus.put("http://127.0.0.1:0/", "port 0, which does not exist");
        corpus.put(url("/to-other-port"), "loopback");
        corpus.put(url("/to-metadata"), "link-local");
        corpus.put(url("/to-ipv6-loopback"), "loopback");
        corpus.put(url("/to-file"), "http and https pages only");
        corpus.put(url("/loop"), "redirects more than 5 times");
        corpus.put(url("/to-unclosed-bracket"), "redirects to 'http://[::1', which is not a valid address");
        corpus.put(url("/to-space"), "redirects to '/a page with spaces', which is not a valid address");
        corpus.put(url("/to-no-port"), "port 99999, which does not exist");
        corpus.put(url("/giant"), "larger than 2 MiB");
        corpus.put(url("/slow"), "within 2 s");
        corpus.put(url("/image.png"), "image/png, not a page web get reads");
        corpus.put(url("/missing"), "answered HTTP 404");
        for (var entry : corpus.entrySet()) {
            assertThatThrownBy(() -> fetch(entry.getKey())).as(entry.getKey())
                    .isInstanceOf(WebFetcher.FetchException.class).hasMessageContaining(entry.getValue());
        }
    }

    @Test
    void publicAddressesPassTheGuardWhateverTheirForm() throws Exception {
        for (String address : List.of("93.184.215.14", "8.8.8.8", "2606:2800:21f:cb07:6820:80da:af6b:8b2c", "2a00:1450:4001:80b::200e",
                "::ffff:8.8.8.8", "64:ff9b::808:808", "192.0.1.1", "192.0.3.1", "198.51.99.1", "203.0.114.1", "2001:db9::1", "2001:200::1")) {
            assertThat(AddressGuard.refusal(InetAddress.getByName(address))).as(address).isNull();
        }
    }

    @Test
    void theOperatorsHostListLimitsWhatMayBeFetched() {
        WebFetcher listed = new WebFetcher(new WebSettings(true, List.of("example.com"), port), 2);
        try {
            assertThatThrownBy(() -> listed.fetch(url("/page.html"), new Cancellation())).hasMessageContaining("not on this server's list");
            assertThat(new WebSettings(true, List.of("example.com"), 0).allowsHost("docs.example.com")).isTrue();
            assertThat(new WebSettings(true, List.of("example.com"), 0).allowsHost("badexample.com")).isFalse();
        } finally {
            listed.close();
        }
    }

    private WebFetcher.Page fetch(String address) throws WebFetcher.FetchException {
        return fetcher.fetch(address, new Cancellation());
    }

    private void page(String path, int status, String type, String body) {
        pages.createContext(path, exchange -> {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", type);
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        });
    }

    private void redirect(String path, String location) {
        pages.createContext(path, exchange -> {
            exchange.getResponseHeaders().add("Location", location);
            exchange.sendResponseHeaders(302, -1);
            exchange.close();
        });
    }
}
