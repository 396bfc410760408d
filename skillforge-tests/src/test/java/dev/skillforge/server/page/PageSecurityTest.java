package dev.skillforge.server.page;

import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Response;
import com.microsoft.playwright.assertions.LocatorAssertions;
import dev.skillforge.server.http.ApiServer;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.testkit.SimScript;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Model output and command results are untrusted: nothing in them ever runs in the page, and no answer
 * freezes it.
 */
class PageSecurityTest extends BrowserTest {

    /**
     * What one hostile answer may keep the page busy, at the most, generous for a shared machine: here
     * 0.1 to 0.5 s with its two cores shared with one other suite, up to 2.2 s shared seven ways; marked
     * took 7.8 s on the first answer alone, 11.6 s shared.
     */
    static final long FROZEN_MS_LIMIT = 3_000;
    /**
     * The same for an answer of a thousand commands, some 8,000 elements to build and lay out: 0.6 s
     * here shared two ways, 5.4 s seven ways. Before, the page had not caught up after a minute.
     */
    static final long THOUSAND_COMMANDS_FROZEN_MS_LIMIT = 8_000;
    /** Turns that stream a megabyte take a few seconds on a slow machine. */
    static final double LONG_TURN_MS = 60_000;
    static final String THE_END = "\n\nThe end.";

    /**
     * Installed in the page: the longest the page went without running a task (its timer fires every
     * 5 ms), that is the longest it was frozen, by rendering or anything else, since the last reset.
     */
    static final String FREEZE_METER = """
            () => {
              const meter = window.__freeze = { longest: 0, last: performance.now() };
              const tick = () => {
                const now = performance.now();
                meter.longest = Math.max(meter.longest, now - meter.last);
                meter.last = now;
                setTimeout(tick, 5);
              };
              tick();
            }""";

    /** An answer written to freeze the page, and text of it the page must show. */
    record HostileAnswer(String text, String shown) {
    }

    /**
     * Answers written to freeze the page (marked took 7.8 s on the first, quadratic in its length, and
     * threw on the second, after which its conversation no longer opened), by what they repeat.
     */
    static Map<String, HostileAnswer> hostileAnswers() {
        Map<String, HostileAnswer> answers = new LinkedHashMap<>();
        answers.put("*a", new HostileAnswer("*a".repeat(100_000), "*a*a*a*a"));
        answers.put(">", new HostileAnswer(">".repeat(6_000) + " deep", ">".repeat(1_000) + " deep"));
        answers.put("_a", new HostileAnswer("_a".repeat(100_000), "_a_a_a_a"));
        answers.put("`a", new HostileAnswer("`a".repeat(100_000), "`a`a`a`a"));
        answers.put("[", new HostileAnswer("[".repeat(200_000), "[".repeat(1_000)));
        answers.put("![", new HostileAnswer("![".repeat(100_000), "![![![!["));
        answers.put("[a](", new HostileAnswer("[a](".repeat(50_000), "[a]([a]([a]("));
        answers.put("1. ", new HostileAnswer("1. ".repeat(10_000) + "ten thousand items deep", "ten thousand items deep"));
        answers.put("<", new HostileAnswer("<a href=\"x\"><b>".repeat(12_500), "<a href=\"x\"><b><a href=\"x\"><b>"));
        answers.put("1 MB line", new HostileAnswer("word ".repeat(199_990), "word word word word"));
        return answers;
    }

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

    @Test
    void hostileAnswersRenderInBoundedTimeShowTheirTextAndTheirConversationsOpenAgain() throws Exception {
        Map<String, HostileAnswer> answers = hostileAnswers();
        start(new SimScript(answers.values().stream().map(answer -> inChunks(answer.text() + THE_END, 100)).toArray(SimReply[]::new)));
        open("/");
        page.evaluate(FREEZE_METER);

        Map<String, String> conversations = new LinkedHashMap<>();
        for (Map.Entry<String, HostileAnswer> answer : answers.entrySet()) {
            page.locator("#new-chat").click();
            assertThat(turns()).hasCount(0);
            resetFreezeMeter();
            sendMessage("Hostile answer: " + answer.getKey());
            Locator turn = turns().first();
            assertThat(turn).hasAttribute("data-status", "complete", new LocatorAssertions.HasAttributeOptions().setTimeout(LONG_TURN_MS));
            assertNotFrozenLong(answer.getKey() + ", streamed", FROZEN_MS_LIMIT);
            assertShowsAnswer(turn, answer.getValue().shown());
            conversations.put(answer.getKey(), conversationId());
        }

        // Each conversation opens again from the stored text, rendered whole at once.
        page.reload();
        assertThat(page.locator("body[data-ready=true]")).hasCount(1);
        page.evaluate(FREEZE_METER);
        for (Map.Entry<String, String> conversation : conversations.entrySet()) {
            Locator row = page.locator(".conversation[data-id='" + conversation.getValue() + "'] .conversation-open");
            resetFreezeMeter();
            row.click();
            assertThat(row).hasAttribute("aria-current", "page");
            assertThat(turns().locator(".user-text")).hasText("Hostile answer: " + conversation.getKey());
            Locator turn = awaitEnd(turns().first());
            assertNotFrozenLong(conversation.getKey() + ", opened", FROZEN_MS_LIMIT);
            assertShowsAnswer(turn, answers.get(conversation.getKey()).shown());
        }
    }

    /**
     * An answer of a thousand commands (the server runs the first 50, the turn's budget, and reports the
     * rest as not run): each shows as its block with its status, and the page is never frozen long. It
     * rendered the whole answer again for each command's announcement: 15 s for a thousand.
     */
    @Test
    void anAnswerOfAThousandCommandsShowsEachWithoutFreezingThePage() throws Exception {
        start(new SimScript(inChunks("Let me try them all.\n\n" + "<shell>no-such-program</shell>".repeat(1_000), 50),
                SimReply.of("None of them ran.")));
        open("/");
        page.evaluate(FREEZE_METER);
        resetFreezeMeter();
        sendMessage("Run a thousand commands");
        Locator turn = turns().first();
        assertThat(turn).hasAttribute("data-status", "complete", new LocatorAssertions.HasAttributeOptions().setTimeout(LONG_TURN_MS));
        assertNotFrozenLong("1,000 commands, streamed", THOUSAND_COMMANDS_FROZEN_MS_LIMIT);
        assertThat(turn.locator("[data-command-id]")).hasCount(1_000);
        assertThat(command(turn, "cmd-0-0")).hasAttribute("data-status", "failed");
        assertThat(command(turn, "cmd-0-999")).hasAttribute("data-status", "failed");
        assertThat(command(turn, "cmd-0-999").locator(".command-output")).containsText("not run");
        assertThat(turn.locator(".iteration").nth(1)).containsText("None of them ran.");
    }

    @Test
    void aRenderingFailureShowsThatAnswerAsWrittenAndTheRestOfTheConversationStillOpens() throws Exception {
        String failing = "Second, which the renderer fails on: **BOOM** <b>not a tag</b>";
        start(new SimScript(SimReply.of("First: **bold** and `code`."), SimReply.of(failing), SimReply.of("Third: *fine*.")));
        open("/");
        // Any fault inside rendering, here one made to order: the sanitiser throws on the second answer.
        page.evaluate("""
                async () => {
                  const { default: purify } = await import('/webjars/dompurify/3.3.3/dist/purify.es.mjs');
                  const sanitize = purify.sanitize;
                  purify.sanitize = (html, config) => {
                    if (html.includes('BOOM')) throw new Error('a rendering fault made by the test');
                    return sanitize.call(purify, html, config);
                  };
                }""");
        for (String message : List.of("one", "two", "three")) {
            sendMessage(message);
            assertThat(awaitEnd(turns().last())).hasAttribute("data-status", "complete");
        }
        assertShowsTheFailureAsWritten(failing);

        // Opened again (the fault still there), every answer shows.
        String id = conversationId();
        page.locator("#new-chat").click();
        assertThat(turns()).hasCount(0);
        page.locator(".conversation[data-id='" + id + "'] .conversation-open").click();
        assertThat(turns()).hasCount(3);
        assertShowsTheFailureAsWritten(failing);
    }

    private void assertShowsTheFailureAsWritten(String failing) {
        Locator second = turns().nth(1).locator(".iteration .content");
        assertThat(second.locator(".render-note")).hasText("This text could not be rendered; it is shown as written.");
        assertThat(second.locator(".plain-text")).hasText(failing);
        assertThat(second.locator("strong, b")).hasCount(0);
        assertThat(turns().nth(0).locator(".iteration .content strong")).hasText("bold");
        assertThat(turns().nth(2).locator(".iteration .content em")).hasText("fine");
    }

    /**
     * The renderer itself on text of every hostile shape, in the page (sanitised, inserted, laid out):
     * each 200,000 characters in a fraction of a second (under the same generous limit), where marked
     * took seconds to minutes.
     */
    @Test
    void markdownRendersHostileTextOfEveryShapeInBoundedTime() throws Exception {
        start(new SimScript());
        open("/");
        @SuppressWarnings("unchecked")
        Map<String, Number> millis = (Map<String, Number>) page.evaluate("""
                async () => {
                  const { renderMarkdown } = await import('/render.js');
                  const n = 200000;
                  const repeat = s => s.repeat(Math.ceil(n / s.length)).slice(0, n);
                  let nested = '';
                  for (let i = 0; nested.length < n; i++) nested += '  '.repeat(i % 1000) + '- item\\n';
                  const shapes = {
                    '*a': repeat('*a'), '_a': repeat('_a'), '**a': repeat('**a'), '*a_b**c__': repeat('*a_b**c__'),
                    '*a ': repeat('*a '), 'a* ': repeat('a* '), 'a***b**c*': repeat('a***b**c*'), '~a': repeat('~a'),
                    '`a': repeat('`a'), '[': repeat('['), ']': repeat(']'), '![': repeat('!['), '[a](': repeat('[a]('),
                    '[a](b "': repeat('[a](b "'), '[a](<': repeat('[a](<'), '(((': repeat('[a](') + repeat(')'),
                    '[a][': '[a]: /x\\n\\n' + repeat('[a]['), '>': repeat('>'), '> ': repeat('> '), '> - ': repeat('> - '),
                    '1. ': repeat('1. '), '+ ': repeat('+ '), 'nested list': nested, '<': repeat('<'), '<a': repeat('<a'),
                    '<div> lines': repeat('<div>\\n'), '<ab:': repeat('<ab:'), '&amp': repeat('&amp'), '\\\\': repeat('\\\\'),
                    'table': '|a|b|\\n|-|-|\\n' + repeat('|x|y|\\n'), 'wide table': repeat('|a') + '\\n' + repeat('|-') + '\\n',
                    'setext': repeat('a\\n=\\n'), 'fences': repeat('```\\n'), 'tabs': repeat('\\t>\\t-\\t'),
                    '(www.': repeat('(www.'), 'http://a ': repeat('http://a '), 'long line': repeat('a'),
                    'lines of spaces': repeat('a' + ' '.repeat(50) + '\\n'), '# a   b': '# a' + ' '.repeat(n) + 'b',
                  };
                  const host = document.createElement('div');
                  host.className = 'content markdown';
                  document.getElementById('turns').append(host);
                  const millis = {};
                  for (const [shape, text] of Object.entries(shapes)) {
                    const started = performance.now();
                    host.replaceChildren(renderMarkdown(text));
                    host.getBoundingClientRect(); // laid out
                    millis[shape] = performance.now() - started;
                    if (host.textContent.length === 0) millis[shape] = 'nothing shown';
                  }
                  host.remove();
                  return millis;
                }""");
        System.out.println("Rendering 200,000 characters, ms: " + millis);
        assertThat(millis).allSatisfy((shape, ms) -> assertThat(ms.doubleValue()).as(shape).isLessThan(FROZEN_MS_LIMIT));
    }

    /**
     * While an answer streams, the page renders what changed, not the whole answer again at each chunk:
     * the blocks it has finished stay the nodes they are (rendered whole at each of its renders, each
     * would be replaced every time). What the rendering cost while it streamed, against rendering it
     * once, is printed (too noisy on a shared machine to assert).
     */
    @Test
    void aStreamingAnswerIsRenderedPieceByPieceNotWholeAtEachChunk() throws Exception {
        StringBuilder answer = new StringBuilder();
        for (int part = 1; answer.length() < 100_000; part++) {
            answer.append("## Part ").append(part).append("\n\nA paragraph with **bold**, `code` and a [link](https://example.com/")
                    .append(part).append("), then plain words until the line is long enough to wrap. ".repeat(10)).append("\n\n");
        }
        String text = answer.toString();
        // 10 ms between chunks: over three seconds of streaming, so that a page on a loaded machine (CI's, where a render
        // of the whole answer took 250 ms) still renders many times while it streams.
        start(new SimScript(inChunks(text, 300).withDelay(java.time.Duration.ofMillis(10))));
        open("/");
        page.evaluate("""
                async () => {
                  const { TurnView } = await import('/turn.js');
                  const flush = TurnView.prototype.flush;
                  const seen = window.__streaming = { ms: 0, renders: 0, removed: 0 };
                  TurnView.prototype.flush = function () {
                    const started = performance.now();
                    flush.call(this);
                    seen.ms += performance.now() - started;
                    seen.renders++;
                  };
                  new MutationObserver(records => {
                    for (const record of records) {
                      for (const node of record.removedNodes) seen.removed += node.nodeType === Node.ELEMENT_NODE ? 1 : 0;
                    }
                  }).observe(document.getElementById('turns'), { childList: true, subtree: true });
                }""");
        sendMessage("A long answer, please");
        Locator turn = turns().first();
        assertThat(turn).hasAttribute("data-status", "complete", new LocatorAssertions.HasAttributeOptions().setTimeout(LONG_TURN_MS));
        Locator blocks = turn.locator(".iteration .content > *");
        assertThat(turn.locator(".iteration .content > h2")).hasCount(text.split("## Part ").length - 1);

        @SuppressWarnings("unchecked")
        Map<String, Number> seen = (Map<String, Number>) page.evaluate("""
                async text => {
                  const { renderMarkdown } = await import('/render.js');
                  const host = document.createElement('div');
                  host.className = 'content markdown';
                  document.getElementById('turns').append(host);
                  const started = performance.now();
                  host.append(renderMarkdown(text));
                  host.getBoundingClientRect();
                  const once = performance.now() - started;
                  host.remove();
                  return { ...window.__streaming, renderedOnceMs: once };
                }""", text);
        System.out.println("A " + text.length() + "-character answer streamed in 300 chunks: " + seen);
        assertThat(seen.get("renders").intValue()).as("renders while it streamed").isGreaterThan(10);
        // The final render replaces each block once; while streaming, only the block being written is.
        assertThat(seen.get("removed").intValue()).as("elements removed from the page")
                .isLessThan(blocks.count() + 10 * seen.get("renders").intValue());
    }

    /** The answer's own text is on the page, with what follows it, and elements nest no deeper than the caps allow. */
    private void assertShowsAnswer(Locator turn, String shown) {
        Locator content = turn.locator(".iteration .content");
        assertThat(content).containsText(shown);
        assertThat(content).containsText("The end.");
        Object depth = content.evaluate("""
                root => {
                  let deepest = 0;
                  for (const node of root.querySelectorAll('*')) {
                    let depth = 0;
                    for (let n = node; n !== root; n = n.parentElement) depth++;
                    deepest = Math.max(deepest, depth);
                    if (deepest > 200) break;
                  }
                  return deepest;
                }""");
        // 16 quotes or lists (a list is two levels), 16 inline elements, a few more around code and tables.
        assertThat(((Number) depth).intValue()).isLessThanOrEqualTo(2 * 16 + 16 + 8);
    }

    private void resetFreezeMeter() {
        page.evaluate("() => { window.__freeze.longest = 0; window.__freeze.last = performance.now(); }");
    }

    /** Once the page shows the answer: the longest it was frozen meanwhile, printed, and under {@code limitMs}. */
    private void assertNotFrozenLong(String what, long limitMs) {
        long frozenMs = Math.round(((Number) page.evaluate("() => window.__freeze.longest")).doubleValue());
        System.out.println("Longest the page was frozen, " + what + ": " + frozenMs + " ms");
        assertThat(frozenMs).as("longest the page was frozen, " + what).isLessThan(limitMs);
    }

    /** The text streamed as {@code count} chunks. */
    static SimReply inChunks(String text, int count) {
        int size = (text.length() + count - 1) / count;
        List<String> chunks = new ArrayList<>();
        for (int at = 0; at < text.length(); at += size) {
            chunks.add(text.substring(at, Math.min(text.length(), at + size)));
        }
        return SimReply.of(chunks.toArray(String[]::new));
    }
}
