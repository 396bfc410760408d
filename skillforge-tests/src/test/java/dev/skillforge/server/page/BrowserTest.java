package dev.skillforge.server.page;

import com.deque.html.axecore.playwright.AxeBuilder;
import com.deque.html.axecore.results.Rule;
import com.fasterxml.jackson.databind.JsonNode;
import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.microsoft.playwright.assertions.LocatorAssertions;
import com.microsoft.playwright.assertions.PlaywrightAssertions;
import com.microsoft.playwright.options.ReducedMotion;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.testkit.SseClient;
import dev.skillforge.server.provider.sim.SimResponder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The chat page in a real browser: Debian's headless Chromium driven by Playwright, against a real
 * server ({@link ServerHarness}) whose simulated provider answers from each test's script.
 *
 * <p>One browser per test JVM (launching Chromium and Playwright's driver costs seconds of CPU, more than most
 * tests), a fresh context (cookies, storage) and page per test, so no test sees another's. Every test
 * leaves a screenshot at {@code target/screenshots/<test>.png}, also when it fails, and fails when
 * the page threw an uncaught error or the browser refused something (a CSP violation, for one).
 */
abstract class BrowserTest {

    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path SCREENSHOTS = Path.of("target", "screenshots");
    static final List<String> CHROMIUM_ARGS = List.of("--headless", "--no-sandbox", "--disable-gpu",
            "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run");
    /** What the page's auto-waiting assertions wait for at most: turns here take well under a second. */
    static final double WAIT_MS = 10_000;

    private static Playwright playwright;
    static Browser browser;

    @TempDir
    Path data;
    ServerHarness server;
    BrowserContext context;
    Page page;
    final List<String> browserErrors = new CopyOnWriteArrayList<>();
    private String testName;

    @BeforeAll
    static void launchChromium() {
        if (browser != null) {
            return; // launched for an earlier class of this JVM
        }
        if (!Files.isExecutable(CHROMIUM)) {
            fail("The browser tests need Debian's Chromium at " + CHROMIUM + " and it is not there. Install it with "
                    + "`apt-get update && apt-get install -y --no-install-recommends chromium` "
                    + "(./skillforge test does this by itself when run as root).");
        }
        PlaywrightAssertions.setDefaultAssertionTimeout(WAIT_MS);
        playwright = Playwright.create(new Playwright.CreateOptions().setEnv(Map.of("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")));
        browser = playwright.chromium().launch(new BrowserType.LaunchOptions()
                .setExecutablePath(CHROMIUM).setHeadless(true).setArgs(CHROMIUM_ARGS));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            browser.close();
            playwright.close();
        }, "close-chromium"));
    }

    @BeforeEach
    void name(TestInfo info) {
        testName = info.getTestMethod().orElseThrow().getName();
    }

    @AfterEach
    void screenshotAndClose() throws Exception {
        try {
            if (page != null && !page.isClosed()) {
                screenshot(testName);
            }
        } finally {
            if (context != null) {
                context.close();
            }
            if (server != null) {
                server.close();
            }
        }
        if (!browserErrors.isEmpty()) {
            fail("The page reported errors: " + browserErrors);
        }
    }

    /** Starts the server with this test's simulated provider. */
    ServerHarness start(SimResponder responder) throws IOException {
        server = new ServerHarness(data, responder);
        return server;
    }

    /** Starts the server with this test's simulated provider and a context window of {@code contextWindow} tokens. */
    ServerHarness start(SimResponder responder, int contextWindow) throws IOException {
        server = ServerHarness.builder(data, responder).contextWindow(contextWindow).start();
        return server;
    }

    /** Starts the server with one provider only, "sim" (the harness has two by default). */
    ServerHarness startWithOneProvider(SimResponder responder) throws IOException {
        return start(responder, List.of(ServerHarness.SimProvider.openAi("sim", dev.skillforge.server.provider.sim.SimProviderServer.MODEL,
                dev.skillforge.server.provider.ProviderPreset.SIM.defaultContextWindow())));
    }

    /** Starts the server with {@code providers} on the simulated server, the first the default. */
    ServerHarness start(SimResponder responder, List<ServerHarness.SimProvider> providers) throws IOException {
        server = ServerHarness.builder(data, responder).providers(providers).start();
        return server;
    }

    /** Opens the page at {@code path} of the server in a fresh browser context (desktop size). */
    Page open(String path) {
        return open(path, 1280, 860, null);
    }

    Page open(String path, int width, int height, com.microsoft.playwright.options.ColorScheme scheme) {
        Browser.NewContextOptions options = new Browser.NewContextOptions().setViewportSize(width, height).setAcceptDownloads(true)
                .setReducedMotion(ReducedMotion.REDUCE); // no transitions: screenshots show the settled page
        if (scheme != null) {
            options.setColorScheme(scheme);
        }
        context = browser.newContext(options);
        page = context.newPage();
        page.onPageError(error -> browserErrors.add("uncaught: " + error));
        page.onConsoleMessage(message -> {
            // A missing image (the XSS payload's src=x) is a 404, not a page error.
            if (message.type().equals("error") && !message.text().startsWith("Failed to load resource")) {
                browserErrors.add("console: " + message.text());
            }
        });
        page.navigate(server.url(path));
        assertThat(page.locator("body[data-ready=true]")).hasCount(1);
        return page;
    }

    /** The rules axe-core runs: WCAG 2.2 levels A and AA, and Deque's best practices. */
    static final List<String> AXE_TAGS = List.of("wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice");

    /**
     * Runs axe-core on what {@code shown} shows now and fails on every serious or critical finding, naming the rule,
     * what it asks for and the elements it found (minor and moderate findings are left to review, not to the build).
     */
    static void assertAccessible(Page shown, String view) {
        List<Rule> violations = new AxeBuilder(shown).withTags(AXE_TAGS).analyze().getViolations();
        List<String> serious = violations.stream().filter(rule -> "serious".equals(rule.getImpact()) || "critical".equals(rule.getImpact()))
                .map(rule -> rule.getId() + " (" + rule.getImpact() + "): " + rule.getHelp() + " — "
                        + rule.getNodes().stream().limit(5).map(node -> node.getHtml()).toList())
                .toList();
        if (!serious.isEmpty()) {
            fail("axe-core found in " + view + ":\n" + String.join("\n", serious));
        }
    }

    void screenshot(String name) throws IOException {
        Files.createDirectories(SCREENSHOTS);
        page.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve(name + ".png")));
    }

    /** Types a message into the composer and sends it with Enter. */
    void sendMessage(String text) {
        Locator input = page.locator("#input");
        input.fill(text);
        input.press("Enter");
    }

    Locator turns() {
        return page.locator("#turns > .turn");
    }

    /** Waits until the turn is over (complete, cancelled, failed or interrupted). */
    Locator awaitEnd(Locator turn) {
        assertThat(turn).hasAttribute("data-status", Pattern.compile("complete|cancelled|failed|interrupted"),
                new LocatorAssertions.HasAttributeOptions().setTimeout(WAIT_MS));
        return turn;
    }

    Locator command(Locator turn, String commandId) {
        return turn.locator("[data-command-id=\"" + commandId + "\"]");
    }

    /** The conversation id the page shows (from its address). */
    String conversationId() {
        String hash = (String) page.evaluate("() => location.hash");
        if (!hash.startsWith("#/c/")) {
            fail("The page shows no stored conversation: location.hash is '" + hash + "'");
        }
        return hash.substring("#/c/".length());
    }

    JsonNode conversation(String id) throws IOException, InterruptedException {
        return SseClient.get(server.url("/api/conversations/" + id)).json();
    }
}
