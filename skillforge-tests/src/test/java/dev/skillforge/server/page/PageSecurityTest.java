package dev.skillforge.server.page;

import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Response;
import dev.skillforge.server.http.ApiServer;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.testkit.SimScript;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/** Model output and command results are untrusted: nothing in them ever runs in the page. */
class PageSecurityTest extends BrowserTest {

    static final String PAYLOADS = """
            An image: <img src=x onerror="window.__xss=1">
            A script: <script>window.__xss=1</script>
            A [link](javascript:window.__xss=1) and <a href="javascript:window.__xss=1">another</a>.
            <svg><script>window.__xss=1</script></svg> <iframe src="javascript:window.__xss=1"></iframe>
            <details open ontoggle="window.__xss=1">x</details> <p style="color:red" onclick="window.__xss=1">styled</p>
            """;
    static final String HOSTILE_SKILL = "---\nname: xss-demo\ndescription: A skill whose text attacks the page.\n---\n# Hostile\n\n" + PAYLOADS;

    @Test
    void xssInModelOutputAndCommandResultsStaysInert() throws Exception {
        start(new SimScript(
                SimReply.of("Here goes.\n\n" + PAYLOADS.substring(0, 60), PAYLOADS.substring(60) + "\n\n<shell>skill get xss-demo</shell>"),
                SimReply.of("And again, after the command:\n\n" + PAYLOADS)));
        server.skills.save("xss-demo", HOSTILE_SKILL);
        open("/");

        sendMessage("Show me the xss-demo skill");
        Locator turn = awaitEnd(turns().first());
        assertThat(turn).hasAttribute("data-status", "complete");
        assertInert();
        // The model's HTML is shown as the text it wrote.
        assertThat(turn.locator(".iteration").first().locator(".content")).containsText("<img src=x onerror=\"window.__xss=1\">");
        assertThat(turn.locator(".iteration").first().locator(".content")).containsText("<script>window.__xss=1</script>");
        // The command result is shown as text, payloads and all.
        assertThat(command(turn, "cmd-0-0").locator(".command-output").textContent()).isEqualTo(HOSTILE_SKILL);
        assertThat(command(turn, "cmd-0-0").locator(".command-output *")).hasCount(0);
        // The model's links stay text: clicking one does nothing.
        Locator link = turn.locator(".iteration").first().getByText("link", new Locator.GetByTextOptions().setExact(true));
        assertThat(link).hasCount(1);
        link.click();
        assertInert();

        // Rendered again from the stored history, and as a skill in the panel.
        page.reload();
        awaitEnd(turns().first());
        assertThat(turns().first().locator(".iteration")).hasCount(2);
        assertInert();
        page.locator("#open-skills").click();
        page.locator(".skill[data-skill='xss-demo'] button", new com.microsoft.playwright.Page.LocatorOptions().setHasText("View")).click();
        assertThat(page.locator("#skill-body h1")).hasText("Hostile");
        assertInert();
    }

    private void assertInert() {
        assertThat(page.evaluate("() => typeof window.__xss")).isEqualTo("undefined");
        for (String root : List.of("#turns", "#skills-panel")) {
            Locator scope = page.locator(root);
            assertThat(scope.locator("script")).hasCount(0);
            assertThat(scope.locator("iframe")).hasCount(0);
            assertThat(scope.locator("[onerror], [onclick], [ontoggle], [onload], [style]")).hasCount(0);
            assertThat(scope.locator("a[href^='javascript:' i]")).hasCount(0);
        }
        assertThat(page.locator("#turns img")).hasCount(0); // HTML from the model is shown as text
    }

    @Test
    void everyResponseCarriesTheSecurityHeaders() throws Exception {
        start(new SimScript());
        open("/");
        Response pageResponse = page.navigate(server.url("/"));
        assertThat(pageResponse.headerValue("content-security-policy")).isEqualTo(ApiServer.CONTENT_SECURITY_POLICY);
        assertThat(ApiServer.CONTENT_SECURITY_POLICY).contains("script-src 'self';").doesNotContain("unsafe-inline").doesNotContain("unsafe-eval");

        HttpClient http = HttpClient.newHttpClient();
        for (String path : List.of("/", "/app.js", "/style.css", "/webjars/dompurify/3.3.3/dist/purify.es.mjs", "/healthz",
                "/api/conversations", "/api/no-such-thing")) {
            HttpResponse<Void> response = http.send(HttpRequest.newBuilder(URI.create(server.url(path))).build(), HttpResponse.BodyHandlers.discarding());
            assertThat(response.headers().firstValue("Content-Security-Policy")).as(path).contains(ApiServer.CONTENT_SECURITY_POLICY);
            assertThat(response.headers().firstValue("X-Content-Type-Options")).as(path).contains("nosniff");
            assertThat(response.headers().firstValue("Referrer-Policy")).as(path).contains("no-referrer");
        }
        // No inline script or style in the page itself: the CSP would refuse it (and the test would see the error).
        assertThat(page.locator("script:not([src])")).hasCount(0);
        assertThat(page.locator("[style]")).hasCount(0);
    }
}
