package dev.skillforge.server.page;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.server.people.Caller;
import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.assertions.LocatorAssertions;
import com.microsoft.playwright.options.ColorScheme;
import com.microsoft.playwright.options.ReducedMotion;
import dev.skillforge.server.provider.sim.DemoAgent;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.testkit.SimScript;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Pattern;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/** The chat page: turns, commands, stop, reload, conversations, the composer, the labels, the layout. */
class ChatPageTest extends BrowserTest {

    static final String COLD_BREW = "---\nname: cold-brew\ndescription: Make cold brew coffee.\n---\n# Cold brew\n\nSteep 12 hours.\n";

    static final String NOTES = java.util.stream.IntStream.rangeClosed(1, 60)
            .mapToObj(i -> "- Note " + i + ": grind coarse, steep twelve hours in the fridge, filter twice, dilute one to one.")
            .collect(java.util.stream.Collectors.joining("\n"));

    /**
     * Installed in the page before a turn: records, per command id, every status its block showed, in
     * order (from the observer's old values, so changes within one task are all seen).
     */
    static final String STATUS_RECORDER = """
            () => {
              window.__statuses = {};
              const note = (id, status) => {
                const list = (window.__statuses[id] ||= []);
                if (status && list[list.length - 1] !== status) list.push(status);
              };
              new MutationObserver(records => {
                for (const r of records) note(r.target.dataset.commandId, r.oldValue);
              }).observe(document.body, { subtree: true, attributes: true, attributeOldValue: true,
                                           attributeFilter: ['data-status'] });
              window.__statusHistory = () => {
                const out = {};
                for (const el of document.querySelectorAll('[data-command-id]')) {
                  const list = [...(window.__statuses[el.dataset.commandId] || [])];
                  if (list[list.length - 1] !== el.dataset.status) list.push(el.dataset.status);
                  out[el.dataset.commandId] = list;
                }
                return out;
              };
            }""";

    @Test
    void twoIterationsWithADuplicateCommandShowEachCommandByIdWithItsStatusAndOutput() throws Exception {
        SimReply first = SimReply.of("Let me look at your skills, twice to be sure.\n\n<shell>skill ",
                "list</shell>\n\n<shell>skill list</shell>\n\nAnd one that does not exist: <shell>skill get no-such-skill</shell>");
        SimReply second = SimReply.of("You have **one** skill, `cold-brew`. To use it:\n\n```bash\necho \"steep 12 hours\" > brew.txt\n```\n",
                "Enjoy.").withReasoning("The list showed one skill; ", "the get failed.");
        start(new SimScript(first, second));
        server.skills.save("cold-brew", COLD_BREW);
        open("/");
        page.evaluate(STATUS_RECORDER);

        // A pasted note makes the first prompt long enough for the provider's cache (1,024 tokens and up).
        sendMessage("What skills do I have? My notes:\n" + NOTES);
        Locator turn = awaitEnd(turns().first());

        assertThat(turn).hasAttribute("data-status", "complete");
        assertThat(atBottom()).as("the page followed the turn to its end").isTrue();
        JsonNode stored = conversation(conversationId()).path("turns").get(0);
        JsonNode commands = stored.path("iterations").get(0).path("commands");
        assertThat(commands).hasSize(3);
        assertThat(turn.locator("[data-command-id]")).hasCount(3);
        @SuppressWarnings("unchecked")
        Map<String, List<String>> history = (Map<String, List<String>>) page.evaluate("() => window.__statusHistory()");
        for (JsonNode command : commands) {
            String id = command.path("commandId").asText();
            Locator block = command(turn, id);
            assertThat(block).hasCount(1);
            assertThat(block).hasAttribute("data-status", command.path("status").asText());
            assertThat(block.locator(".command-text").textContent()).isEqualTo(command.path("command").asText());
            assertThat(block.locator(".command-output").textContent()).as(id).isEqualTo(command.path("result").asText());
            assertThat(history.get(id)).as("statuses of " + id)
                    .containsExactly("queued", "running", command.path("status").asText());
        }
        // The same command twice is two blocks, each with its own status and output: clients match on command ids, cmd-{iteration}-{index}.
        assertThat(commands.get(0).path("command").asText()).isEqualTo("skill list");
        assertThat(commands.get(1).path("command").asText()).isEqualTo("skill list");
        assertThat(command(turn, "cmd-0-0")).hasAttribute("data-status", "completed");
        assertThat(command(turn, "cmd-0-1")).hasAttribute("data-status", "completed");
        assertThat(command(turn, "cmd-0-1").locator(".command-output")).containsText("cold-brew");
        assertThat(command(turn, "cmd-0-2")).hasAttribute("data-status", "failed");
        assertThat(command(turn, "cmd-0-2").locator(".command-exit")).containsText("exit code");

        // Both iterations, each exactly as stored; the tags render as blocks, not as text.
        JsonNode entries = conversation(conversationId()).path("entries");
        assertThat(turn.locator(".iteration")).hasCount(2);
        assertThat(turn.locator("pre.raw-content").nth(0).textContent()).isEqualTo(entries.get(1).path("content").asText());
        assertThat(turn.locator("pre.raw-tool-output").nth(0).textContent()).isEqualTo(entries.get(2).path("content").asText());
        assertThat(turn.locator("pre.raw-content").nth(1).textContent()).isEqualTo(entries.get(3).path("content").asText());
        assertThat(entries.get(1).path("content").asText()).isEqualTo(first.text());
        assertThat(turn.locator(".iteration").nth(0).locator(".content").textContent()).doesNotContain("<shell>");

        // Markdown with a highlighted code block; reasoning collapsed; usage with the cached share.
        Locator answer = turn.locator(".iteration").nth(1);
        assertThat(answer.locator("strong")).hasText("one");
        assertThat(answer.locator("pre code.hljs")).hasCount(1);
        assertThat(answer.locator("pre code.hljs span[class^=hljs-]").first()).isAttached();
        assertThat(answer.locator("details.reasoning")).not().hasAttribute("open", "");
        assertThat(answer.locator("details.reasoning .reasoning-text").textContent()).isEqualTo("The list showed one skill; the get failed.");
        assertThat(turn.locator(".turn-meta .stats")).hasText(Pattern.compile("in [\\d,]+ · out [\\d,]+ · cache [1-9]\\d*% · 2 iterations"));
        JsonNode usage = stored.path("usage");
        long share = Math.round(100.0 * usage.path("cacheReadTokens").asLong() / usage.path("inputTokens").asLong());
        assertThat(turn.locator(".turn-meta .stats")).containsText("cache " + share + "%");
        // The conversation's totals in the top bar, from GET /api/conversations/{id}'s usage.
        JsonNode total = conversation(conversationId()).path("usage");
        assertThat(page.locator("#conversation-usage")).hasText("conversation: in " + String.format(java.util.Locale.ENGLISH, "%,d", total.path("inputTokens").asLong())
                + " · out " + String.format(java.util.Locale.ENGLISH, "%,d", total.path("outputTokens").asLong()) + " · cache " + Math.round(100 * total.path("cacheShare").asDouble()) + "%"
                + " · cost unknown"); // a simulation's tokens have no price
        assertThat(turn.locator(".turn-meta .cost")).hasText("cost unknown");

        page.emulateMedia(new Page.EmulateMediaOptions().setColorScheme(ColorScheme.DARK));
        screenshot("twoIterationsWithADuplicateCommandShowEachCommandByIdWithItsStatusAndOutput-dark");
        page.emulateMedia(new Page.EmulateMediaOptions().setColorScheme(ColorScheme.LIGHT));
    }

    @Test
    void stopMidRunEndsTheTurnAtOnce() throws Exception {
        SimReply neverStarts = SimReply.of("This is never sent.").withFault(new SimReply.Stall(0));
        SimReply stallsAfterTwoChunks = SimReply.of("Working on it", " slowly", " and never finishing").withFault(new SimReply.Stall(2));
        start(new SimScript(neverStarts, stallsAfterTwoChunks));
        open("/");

        // Before the first token: the provider has sent nothing yet.
        sendMessage("Take your time");
        Locator first = turns().nth(0);
        awaitRunning();
        assertThat(page.locator("#stop")).isVisible();
        // The turn shows running before its provider request is sent: stopped before that, there is no request to abort
        // (a CI run under load stopped it there). Stop once the provider has it.
        long sent = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (server.sim.requests().isEmpty()) {
            assertThat(System.nanoTime()).as("the provider received the request").isLessThan(sent);
            Thread.sleep(10);
        }
        long start = System.nanoTime();
        page.locator("#stop").click();
        assertThat(first).hasAttribute("data-status", "cancelled", new LocatorAssertions.HasAttributeOptions().setTimeout(2_000));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
        assertThat(server.sim.awaitAbort(Duration.ofSeconds(2))).as("the provider request was aborted").isTrue();
        assertThat(first.locator(".turn-meta")).containsText("Stopped before the first word");
        assertThat(first.locator(".iteration")).hasCount(0);
        assertThat(page.locator("#send")).isEnabled();
        assertThat(page.locator("#stop")).isHidden();

        // Mid-run: two chunks are shown, then the stream goes quiet.
        sendMessage("Again, slowly");
        Locator second = turns().nth(1);
        assertThat(second.locator(".iteration .content")).hasText("Working on it slowly");
        start = System.nanoTime();
        page.locator("#stop").click();
        assertThat(second).hasAttribute("data-status", "cancelled", new LocatorAssertions.HasAttributeOptions().setTimeout(2_000));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
        assertThat(second.locator(".iteration .content")).hasText("Working on it slowly");

        JsonNode stored = conversation(conversationId());
        assertThat(stored.path("running").asBoolean()).isFalse();
        assertThat(stored.path("turns")).extracting(t -> t.path("status").asText()).containsExactly("cancelled", "cancelled");
        assertThat(stored.path("entries")).extracting(e -> e.path("content").asText())
                .containsExactly("Take your time", "Again, slowly", "Working on it slowly");
        assertThat(page.locator("#input")).isEditable();
    }

    @Test
    void reloadMidRunReattachesAndShowsWhatWasMissed() throws Exception {
        SimReply first = SimReply.of("Part one. ", "Part two. ", "Part three.\n\n", "<shell>skill list</shell>").withDelay(Duration.ofMillis(200));
        // Held after its first chunk until the reloaded page has re-attached: the turn still runs when it comes back.
        CountDownLatch reattached = new CountDownLatch(1);
        SimReply second = SimReply.of("Part four. ", "Part five. ", "Part six. ", "Part seven. ", "Part eight. ", "Part nine. ",
                "Part ten. ", "Part eleven. ", "Part twelve.").withDelay(Duration.ofMillis(50)).withFault(new SimReply.Hold(1, reattached));
        start(new SimScript(first, second));
        open("/");

        sendMessage("Count slowly");
        assertThat(turns().first()).containsText("Part two.");
        String id = conversationId();
        List<String> lastEventIds = new CopyOnWriteArrayList<>();
        page.onRequest(request -> {
            if (request.url().endsWith("/api/conversations/" + id + "/events")) {
                lastEventIds.add(request.headers().getOrDefault("last-event-id", ""));
            }
        });
        screenshot("reloadMidRunReattachesAndShowsWhatWasMissed-before");
        page.reload();

        Locator turn = turns().first();
        assertThat(turn.locator(".user-text")).hasText("Count slowly");
        assertThat(turn.locator(".iteration").first()).containsText("Part one.");
        assertThat(turn).hasAttribute("data-status", "running");
        page.waitForCondition(() -> !lastEventIds.isEmpty());
        reattached.countDown();
        awaitEnd(turn);
        assertThat(turn).hasAttribute("data-status", "complete");
        assertThat(lastEventIds).as("re-attached after the last event this tab had seen").hasSize(1);
        assertThat(Long.parseLong(lastEventIds.getFirst())).isPositive();

        // Everything once, in order, exactly as stored.
        JsonNode entries = conversation(id).path("entries");
        assertThat(turn.locator(".iteration")).hasCount(2);
        assertThat(turn.locator("pre.raw-content").nth(0).textContent()).isEqualTo(entries.get(1).path("content").asText());
        assertThat(turn.locator("pre.raw-content").nth(1).textContent()).isEqualTo(entries.get(3).path("content").asText());
        assertThat(turn.locator(".iteration").nth(0).locator(".content p").textContent()).isEqualTo("Part one. Part two. Part three.");
        assertThat(turn.locator(".iteration").nth(1).locator(".content p").textContent())
                .isEqualTo("Part four. Part five. Part six. Part seven. Part eight. Part nine. Part ten. Part eleven. Part twelve.");
        assertThat(command(turn, "cmd-0-0")).hasAttribute("data-status", "completed");
        assertThat(turn.locator("[data-command-id]")).hasCount(1);
        assertThat(turn.locator(".turn-meta .stats")).containsText("2 iterations");
        assertThat(page.locator("#send")).isVisible();
    }

    @Test
    void reloadMidRunInAnotherTabReplaysTheWholeTurn() throws Exception {
        String[] counts = {"One. ", "Two. ", "Three. ", "Four. ", "Five. ", "Six. ", "Seven. ", "Eight. ", "Nine. ", "Ten. ", "Eleven. ", "Twelve."};
        CountDownLatch release = new CountDownLatch(1); // the turn runs on until the other tab has re-attached
        start(new SimScript(SimReply.of(counts).withDelay(Duration.ofMillis(50)).withFault(new SimReply.Hold(2, release))));
        open("/");
        sendMessage("Count");
        assertThat(turns().first()).containsText("Two.");
        String id = conversationId();

        // Another browser (no storage shared): it has seen nothing, so it asks for the whole turn.
        BrowserContext elsewhere = browser.newContext(new Browser.NewContextOptions().setReducedMotion(ReducedMotion.REDUCE));
        Page other = elsewhere.newPage();
        List<String> lastEventIds = new CopyOnWriteArrayList<>();
        other.onRequest(request -> {
            if (request.url().endsWith("/api/conversations/" + id + "/events")) {
                lastEventIds.add(request.headers().getOrDefault("last-event-id", "none"));
            }
        });
        other.navigate(server.url("/#/c/" + id));
        Locator turn = other.locator("#turns > .turn").first();
        assertThat(turn.locator(".iteration .content")).containsText("One. Two.");
        assertThat(turn).hasAttribute("data-status", "running");
        release.countDown();
        assertThat(turn).hasAttribute("data-status", "complete");
        assertThat(turn.locator(".iteration .content p").textContent()).isEqualTo(String.join("", counts));
        assertThat(lastEventIds).containsExactly("none");
        elsewhere.close();
        awaitEnd(turns().first());
        assertThat(turns().first().locator(".iteration .content p").textContent()).isEqualTo(String.join("", counts));
    }

    @Test
    void switchingConversationsShowsStoredHistoryExactly() throws Exception {
        start(new SimScript(
                SimReply.of("Let me look.\n\n<shell>skill list</shell>"),
                SimReply.of("You have *one* skill:\n\n- cold-brew\n"),
                SimReply.of("# A heading\n\nSome `code`, a table and  two  spaces:\n\n| a | b |\n|---|---|\n| 1 | 2 |\n", "\nTrailing text.  ")));
        server.skills.save("cold-brew", COLD_BREW);
        open("/");

        sendMessage("What skills do I have?");
        awaitEnd(turns().first());
        String a = conversationId();
        page.locator("#new-chat").click();
        assertThat(page.locator("#empty-state")).isVisible();
        assertThat(turns()).hasCount(0);
        sendMessage("Show me\nsome markdown");
        awaitEnd(turns().first());
        String b = conversationId();
        assertThat(b).isNotEqualTo(a);
        assertThat(page.locator(".conversation .conversation-open")).hasText(new String[]{"Show me", "What skills do I have?"});

        page.locator(".conversation[data-id='" + a + "'] .conversation-open").click();
        assertShowsExactly(a);
        page.locator(".conversation[data-id='" + b + "'] .conversation-open").click();
        assertShowsExactly(b);
        page.goBack();
        assertShowsExactly(a);
        page.reload();
        assertShowsExactly(a);
    }

    /** The page shows conversation {@code id} and only it, every entry exactly as the API stores it. */
    private void assertShowsExactly(String id) throws Exception {
        assertThat(page).hasURL(Pattern.compile("#/c/" + id + "$"));
        JsonNode stored = conversation(id);
        JsonNode storedTurns = stored.path("turns");
        assertThat(turns()).hasCount(storedTurns.size());
        assertThat(page.locator(".conversation[data-id='" + id + "'] .conversation-open")).hasAttribute("aria-current", "page");
        // The row is marked at once, the turns are swapped once the conversation is fetched: wait for its own messages.
        List<String> userMessages = new ArrayList<>();
        stored.path("entries").forEach(entry -> {
            if (entry.path("role").asText().equals("user")) {
                userMessages.add(entry.path("content").asText());
            }
        });
        assertThat(turns().locator(".user-text")).hasText(userMessages.toArray(String[]::new));
        List<String> shown = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        for (int t = 0; t < storedTurns.size(); t++) {
            Locator turn = turns().nth(t);
            assertThat(turn).hasAttribute("data-status", storedTurns.get(t).path("status").asText());
            shown.add(turn.locator(".user-text").textContent());
            Locator raw = turn.locator("details.raw pre");
            for (int i = 0; i < raw.count(); i++) {
                shown.add(raw.nth(i).textContent());
            }
            for (JsonNode iteration : storedTurns.get(t).path("iterations")) {
                for (JsonNode command : iteration.path("commands")) {
                    Locator block = command(turn, command.path("commandId").asText());
                    assertThat(block).hasAttribute("data-status", command.path("status").asText());
                    assertThat(block.locator(".command-output").textContent()).isEqualTo(command.path("result").asText());
                }
            }
        }
        for (JsonNode entry : stored.path("entries")) {
            expected.add(entry.path("content").asText());
        }
        assertThat(shown).containsExactlyElementsOf(expected);
    }

    @Test
    void conversationListIsNewestFirstAndRenamesAndDeletes() throws Exception {
        start(new SimScript(SimReply.of("First answer."), SimReply.of("Second answer.")));
        open("/");
        sendMessage("The first conversation");
        awaitEnd(turns().first());
        String first = conversationId();
        page.locator("#new-chat").click();
        sendMessage("The second conversation");
        awaitEnd(turns().first());
        Locator titles = page.locator(".conversation .conversation-open");
        assertThat(titles).hasText(new String[]{"The second conversation", "The first conversation"});

        Locator item = page.locator(".conversation[data-id='" + first + "']");
        item.locator(".rename").click();
        Locator input = page.locator(".rename-input");
        input.fill("Renamed by keyboard");
        input.press("Enter");
        assertThat(page.locator(".conversation[data-id='" + first + "'] .conversation-open")).hasText("Renamed by keyboard");
        assertThat(conversation(first).path("title").asText()).isEqualTo("Renamed by keyboard");
        assertThat(titles).hasText(new String[]{"The second conversation", "Renamed by keyboard"}); // a new name is not new activity: the order stays

        page.locator(".conversation[data-id='" + first + "'] .delete").click();
        page.locator(".conversation .confirm-yes").click();
        assertThat(page.locator(".conversation")).hasCount(1);
        assertThat(titles).hasText(new String[]{"The second conversation"});
        assertThat(page.locator("#turns .user-text")).hasText("The second conversation"); // the shown one stays
        assertThat(server.conversations.list(Caller.LOCAL, 10, 0)).hasSize(1);
    }

    @Test
    void anErrorShowsInlineAndRetrySendsTheMessageAgain() throws Exception {
        start(new SimScript(SimReply.of().withFault(new SimReply.HttpError(400, "the model refused this request", null)),
                SimReply.of("Second time lucky.")));
        open("/");
        sendMessage("Try this");
        Locator first = awaitEnd(turns().first());
        assertThat(first).hasAttribute("data-status", "failed");
        assertThat(first.locator(".turn-error")).isVisible();
        assertThat(first.locator(".turn-error .error-text")).containsText("the model refused this request");
        screenshot("anErrorShowsInlineAndRetrySendsTheMessageAgain-error");

        first.locator(".turn-error").getByText("Retry").click();
        Locator second = awaitEnd(turns().nth(1));
        assertThat(second).hasAttribute("data-status", "complete");
        assertThat(second.locator(".user-text")).hasText("Try this");
        assertThat(second.locator(".iteration .content")).hasText("Second time lucky.");
        assertThat(first.locator(".turn-error")).isHidden();
        assertThat(conversation(conversationId()).path("turns")).extracting(t -> t.path("status").asText())
                .containsExactly("failed", "complete");
    }

    @Test
    void emptyStateExamplePromptStartsATurn() throws Exception {
        start(new DemoAgent(Duration.ofMillis(2)));
        open("/");
        assertThat(page.locator("#empty-state")).isVisible();
        Locator examples = page.locator("#empty-state .example");
        assertThat(examples).hasCount(3);
        screenshot("emptyStateExamplePromptStartsATurn-before");

        examples.filter(new Locator.FilterOptions().setHasText("What skills do I have?")).click();

        Locator turn = turns().first();
        assertThat(turn.locator(".user-text")).hasText("What skills do I have?");
        awaitEnd(turn);
        assertThat(turn).hasAttribute("data-status", "complete");
        assertThat(page.locator("#empty-state")).isHidden();
        assertThat(turn.locator(".iteration").first()).containsText("Simulated provider");
        assertThat(command(turn, "cmd-0-0")).hasAttribute("data-status", "completed");
        assertThat(command(turn, "cmd-0-0").locator(".command-output")).containsText("No skills yet");
        assertThat(page.locator(".conversation .conversation-open")).hasText(new String[]{"What skills do I have?"});
        assertThat(conversation(conversationId()).path("entries").get(0).path("content").asText()).isEqualTo("What skills do I have?");
    }

    @Test
    void simulatedProviderIsLabelled() throws Exception {
        startWithOneProvider(new DemoAgent(Duration.ofMillis(2))); // with several, the label names the provider (ProviderPickerTest)
        open("/");
        assertThat(page.locator("#provider")).hasText("Simulated provider · offline demo");
        assertThat(page.locator("#sim-notice")).isVisible();
        assertThat(page.locator("#sim-notice")).containsText("simulated provider");
        assertThat(page.locator("#sim-notice")).containsText("not a real model");
    }

    @Test
    void enterSendsAndShiftEnterMakesANewLine() throws Exception {
        start(new SimScript(SimReply.of("Got both lines.")));
        open("/");
        Locator input = page.locator("#input");
        input.click();
        page.keyboard().type("first line");
        page.keyboard().press("Shift+Enter");
        page.keyboard().type("second line");
        assertThat(input).hasValue("first line\nsecond line");
        assertThat(turns()).hasCount(0);

        page.keyboard().press("Enter");
        Locator turn = turns().first();
        assertThat(turn.locator(".user-text")).hasCount(1);
        assertThat(turn.locator(".user-text").textContent()).isEqualTo("first line\nsecond line");
        assertThat(input).hasValue("");
        awaitEnd(turn);
        assertThat(turn.locator(".iteration .content")).hasText("Got both lines.");
        assertThat(conversation(conversationId()).path("entries").get(0).path("content").asText()).isEqualTo("first line\nsecond line");
        assertThat(input).isFocused();
    }

    /**
     * Installed in the page: each turn's stream ({@code POST …/messages}) reaches the page event by event as the
     * server sends it, but its end (the server closing the stream) only when the test lets it go, as a relay or a
     * slow network can deliver the close a while after the last event. {@code __turnStreams.open()}: the turn
     * streams whose end the page has not read yet; {@code __turnStreams.release()}: lets the oldest held end go.
     */
    static final String HOLD_STREAM_ENDS = """
            () => {
              const realFetch = window.fetch.bind(window);
              const streams = [];
              window.__turnStreams = {
                open: () => streams.filter(s => !s.closed).length,
                release: () => { const s = streams.find(s => !s.released); if (s) { s.released = true; s.go(); } },
              };
              window.fetch = async (input, init) => {
                const response = await realFetch(input, init);
                const url = typeof input === 'string' ? input : input.url;
                if (!url.endsWith('/messages') || !response.ok
                    || !(response.headers.get('Content-Type') || '').startsWith('text/event-stream')) {
                  return response;
                }
                const stream = { closed: false, released: false };
                const released = new Promise(resolve => { stream.go = resolve; });
                streams.push(stream);
                const reader = response.body.getReader();
                const body = new ReadableStream({
                  async pull(controller) {
                    const { value, done } = await reader.read();
                    if (!done) {
                      controller.enqueue(value);
                      return;
                    }
                    await released;
                    stream.closed = true;
                    controller.close();
                  },
                  cancel: reason => reader.cancel(reason),
                });
                return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
              };
            }""";

    @Test
    void enterRightAfterTheLastEventSendsTheNextMessageThoughTheStreamClosesLate() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        start(new SimScript(SimReply.of("First answer."),
                SimReply.of("Second", " answer.").withFault(new SimReply.Hold(1, release)),
                SimReply.of().withFault(new SimReply.HttpError(400, "the model refused this request", null)),
                SimReply.of("Fourth answer.")));
        open("/");
        page.evaluate(HOLD_STREAM_ENDS);
        Locator input = page.locator("#input");

        // The first turn's done event is shown; its stream is still open (its end held back): Enter sends at once.
        sendMessage("First question");
        Locator first = turns().nth(0);
        assertThat(first).hasAttribute("data-status", "complete");
        assertThat(openTurnStreams()).isEqualTo(1);
        sendMessage("Second question");

        Locator second = turns().nth(1);
        assertThat(second.locator(".user-text")).hasText("Second question");
        assertThat(input).hasValue("");
        assertThat(second.locator(".iteration .content")).hasText("Second");
        assertThat(second).hasAttribute("data-turn", "1");

        // The first stream's late close, while the second turn runs, leaves the second alone.
        page.evaluate("() => window.__turnStreams.release()");
        awaitOpenTurnStreams(1);
        String id = conversationId();
        assertThat(second).hasAttribute("data-status", "running");
        assertThat(page.locator("body")).hasAttribute("data-busy", "true");
        assertThat(page.locator("#stop")).isVisible();
        assertThat(page.locator("#send")).isHidden();
        assertThat(((Number) page.evaluate("id => JSON.parse(sessionStorage.getItem('skillforge.run.' + id)).turn", id)).intValue())
                .as("the second turn's run cache, kept for a reload").isEqualTo(1);
        release.countDown();
        assertThat(second).hasAttribute("data-status", "complete");
        assertThat(second.locator(".iteration .content")).hasText("Second answer.");
        assertThat(openTurnStreams()).isEqualTo(1);
        assertThat(page.locator("#send")).isVisible();
        assertThat(page.locator("#send")).isEnabled();
        assertThat(input).isFocused(); // at the answer's end, not at its stream's
        page.keyboard().type("Third question");
        page.keyboard().press("Enter");

        // The same after an error that ends a turn: Enter right after it sends at once.
        Locator third = turns().nth(2);
        assertThat(third).hasAttribute("data-status", "failed");
        assertThat(third.locator(".turn-error .error-text")).containsText("the model refused this request");
        assertThat(openTurnStreams()).isEqualTo(2);
        sendMessage("Fourth question");
        Locator fourth = awaitEnd(turns().nth(3));
        assertThat(fourth).hasAttribute("data-status", "complete");
        assertThat(fourth.locator(".iteration .content")).hasText("Fourth answer.");
        assertThat(fourth).hasAttribute("data-turn", "3");

        for (int held = openTurnStreams(); held > 0; held--) {
            page.evaluate("() => window.__turnStreams.release()");
        }
        awaitOpenTurnStreams(0);
        assertThat(turns()).hasCount(4);
        assertThat(page.locator("#send")).isEnabled();
        assertThat(page.locator("#stop")).isHidden();
        assertThat(input).isFocused();
        JsonNode stored = conversation(id);
        assertThat(stored.path("turns")).extracting(t -> t.path("status").asText())
                .containsExactly("complete", "complete", "failed", "complete");
        assertThat(stored.path("entries")).filteredOn(e -> e.path("role").asText().equals("user"))
                .extracting(e -> e.path("content").asText())
                .containsExactly("First question", "Second question", "Third question", "Fourth question");
    }

    private int openTurnStreams() {
        return ((Number) page.evaluate("() => window.__turnStreams.open()")).intValue();
    }

    /** Waits until the page has read the end of all but {@code open} turn streams. */
    private void awaitOpenTurnStreams(int open) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (openTurnStreams() != open) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("turn streams still open: " + openTurnStreams() + ", expected " + open);
            }
            Thread.sleep(20);
        }
    }

    @Test
    void autoScrollFollowsTheStreamUnlessThePersonScrolledUp() throws Exception {
        String[] paragraphs = java.util.stream.IntStream.range(0, 40)
                .mapToObj(i -> "Paragraph " + i + " of a long answer that streams in slowly.\n\n").toArray(String[]::new);
        start(new SimScript(SimReply.of(paragraphs).withDelay(Duration.ofMillis(50))));
        open("/");
        sendMessage("Write a lot about these notes:\n" + NOTES); // a tall message first, then a stream
        Locator turn = turns().first();

        assertThat(turn).containsText("Paragraph 15 ");
        assertThat(atBottom()).as("following the stream").isTrue();
        page.mouse().move(700, 400);
        page.mouse().wheel(0, -600);
        assertThat(turn).containsText("Paragraph 30 ");
        assertThat(atBottom()).as("left where the person scrolled to").isFalse();
        assertThat(page.locator("#jump-latest")).isVisible();
        awaitEnd(turn);
        assertThat(atBottom()).isFalse();

        page.locator("#jump-latest").click();
        assertThat(page.locator("#jump-latest")).isHidden();
        assertThat(atBottom()).isTrue();
    }

    private boolean atBottom() {
        return (Boolean) page.evaluate("() => { const m = document.querySelector('#messages'); "
                + "return m.scrollHeight - m.scrollTop - m.clientHeight < 48; }");
    }

    @Test
    void keyboardAloneReachesEveryControlAndStartsATurn() throws Exception {
        start(new SimScript(SimReply.of("Started from the keyboard.")));
        open("/");
        List<String> reached = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            page.keyboard().press("Tab");
            reached.add((String) page.evaluate("() => { const e = document.activeElement; "
                    + "return e.id ? '#' + e.id : (e.className ? '.' + e.className.split(' ')[0] : e.tagName); }"));
        }
        assertThat(reached).contains("#open-skills", "#theme", "#new-chat", ".example", "#messages", "#input", "#send");
        page.locator("#empty-state .example").first().focus();
        page.keyboard().press("Enter");
        Locator turn = awaitEnd(turns().first());
        assertThat(turn.locator(".user-text")).hasText("What skills do I have?");
        assertThat(turn.locator(".iteration .content")).hasText("Started from the keyboard.");
    }

    @Test
    void readableOnAPhoneWidthScreenInLightAndDark() throws Exception {
        start(new SimScript(SimReply.of("Here is a long line that must wrap on a phone: ",
                "supercalifragilisticexpialidocious-and-then-some-more-words-without-breaks\n\n<shell>skill list</shell>"),
                SimReply.of("```text\nan output line that is wider than a phone screen, so its block scrolls instead of the page\n```")));
        open("/", 390, 844, ColorScheme.LIGHT);
        assertThat(page.locator("#sidebar")).not().isInViewport();
        sendMessage("Does this fit a phone?");
        Locator turn = awaitEnd(turns().first());
        assertThat(turn).hasAttribute("data-status", "complete");
        assertThat((Boolean) page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")).isTrue();
        assertThat((Boolean) page.evaluate("() => document.querySelector('#messages').scrollWidth <= document.querySelector('#messages').clientWidth")).isTrue();
        assertThat(page.locator("#send")).isInViewport();
        screenshot("readableOnAPhoneWidthScreenInLightAndDark-light");
        String lightBackground = (String) page.evaluate("() => getComputedStyle(document.body).backgroundColor");

        page.emulateMedia(new Page.EmulateMediaOptions().setColorScheme(ColorScheme.DARK));
        String darkBackground = (String) page.evaluate("() => getComputedStyle(document.body).backgroundColor");
        assertThat(darkBackground).isNotEqualTo(lightBackground);
        screenshot("readableOnAPhoneWidthScreenInLightAndDark-dark");

        page.locator("#toggle-sidebar").click();
        assertThat(page.locator("#sidebar")).isInViewport();
        assertThat(page.locator(".conversation .conversation-open")).hasCount(1);
        screenshot("readableOnAPhoneWidthScreenInLightAndDark-sidebar");
        page.locator(".conversation .conversation-open").click();
        assertThat(page.locator("#sidebar")).not().isInViewport();
    }

    /** Waits until the server runs the page's turn (the page sent it). */
    private void awaitRunning() throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (System.nanoTime() < deadline) {
            String hash = (String) page.evaluate("() => location.hash");
            if (hash.startsWith("#/c/") && server.turns.isRunning(hash.substring(4))) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the page's turn never started at the server");
    }
}
