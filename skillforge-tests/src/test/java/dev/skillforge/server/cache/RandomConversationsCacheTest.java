package dev.skillforge.server.cache;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.server.people.Caller;
import dev.skillforge.core.agent.AgentLoop;
import dev.skillforge.core.shell.ShellTagScanner;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.testkit.ServerHarness.SimProvider;
import dev.skillforge.server.provider.ProviderPreset;
import dev.skillforge.server.config.SecuritySettings;
import dev.skillforge.server.conversation.ConversationSnapshot;
import dev.skillforge.server.exec.CommandPolicy;
import dev.skillforge.server.exec.ProcessRunner;
import dev.skillforge.testkit.SseClient;
import dev.skillforge.testkit.TestImages;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.cache.CacheRule;
import dev.skillforge.server.provider.sim.SimProviderServer;
import dev.skillforge.server.provider.sim.SimRequest;
import dev.skillforge.server.skill.SkillCommands;
import dev.skillforge.server.store.StoredEntry;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The prompt-cache invariant under random load (docs/cache.md): {@value #TURNS} turns of {@value #CONVERSATIONS}
 * random conversations, {@value #CLIENTS} clients at once, through the real server's conversation API over
 * HTTP, against the simulated provider in OpenAI's and Gemini's formats, some conversations with a context
 * window small enough to be cut often. Each turn is random: its answers' chunking (tags split across
 * chunks), their commands (skill commands, refused ones, the same one twice), one to four model calls or
 * up to the iteration limit, HTTP errors that are retried, failed calls (an error mid-stream, a cut
 * stream, retries spent), and stops (in a stream, in a command).
 *
 * <p>What must hold: no cache break; every request after a conversation's first starts with the whole
 * previous one and got from the simulation's cache exactly what its rule allows for that prefix, except
 * at a context cut (a new prefix by design), which the simulation, the transcripts and the metrics count
 * alike, and which happened. Each turn ended as planned and its client saw exactly the planned answers;
 * each stored transcript is what its clients saw, every answer with commands is followed by its tool
 * entry. One turn in ten attaches a document and another one in ten an image, which every later request of its
 * conversation carries as the same bytes. After a restart, every conversation reads back from the database exactly as memory held it, and
 * what its provider would be sent next starts with the last request it was sent.
 *
 * <p>The build runs one fixed seed ({@value #BUILD_SEED}), so a statistical bound (cuts stay rare) cannot
 * fail one build in a hundred by chance; {@code -Dcache.seed=random} runs a new seed, {@code -Dcache.seed=N}
 * plans the same conversations and turns as seed N again (which client runs when, and so what
 * {@code skill list} shows, follows the timing). The seed is printed.
 */
class RandomConversationsCacheTest {

    static final int TURNS = 10_000;
    static final int CONVERSATIONS = 200;
    static final int CLIENTS = 8;
    static final String SEED_PROPERTY = "cache.seed";
    static final long BUILD_SEED = 20261123L;

    private static final int LARGE_WINDOW = ProviderPreset.SIM.defaultContextWindow();
    /** Small enough to be cut every few turns: the system prompt alone fills a third of the smaller one. */
    private static final int[] SMALL_WINDOWS = {2048, 3072};
    /** OpenAI-format providers: the harness's two, with the simulation's window, and one for each small window. */
    private static final List<SimProvider> OPENAI_PROVIDERS = Stream.concat(ServerHarness.DEFAULT_PROVIDERS.stream(),
            IntStream.of(SMALL_WINDOWS).mapToObj(window -> SimProvider.openAi("sim-" + window, SimProviderServer.MODEL, window))).toList();

    private final ConversationScripts scripts = new ConversationScripts();
    private final AtomicInteger turnsRun = new AtomicInteger();
    private final Map<String, AtomicInteger> endings = new ConcurrentHashMap<>();
    private final AtomicBoolean failed = new AtomicBoolean();
    private final AtomicInteger attachments = new AtomicInteger();
    private final AtomicInteger images = new AtomicInteger();

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES) // about a minute; a turn that hangs fails the test instead of the build
    void tenThousandRandomTurnsEachReuseTheWholePreviousPromptWithoutACacheBreak(@TempDir Path data) throws Exception {
        String chosen = System.getProperty(SEED_PROPERTY, Long.toString(BUILD_SEED));
        long seed = chosen.equals("random") ? ThreadLocalRandom.current().nextLong() : Long.parseLong(chosen);
        String repeat = "seed " + seed + " (repeat with -D" + SEED_PROPERTY + "=" + seed + ")";
        System.out.println("RandomConversationsCacheTest: " + repeat);
        try {
            run(new Random(seed), data);
        } catch (AssertionError | Exception e) {
            throw new AssertionError(repeat + ": " + e.getMessage(), e);
        }
    }

    private void run(Random random, Path data) throws Exception {
        List<Conversation> conversations = IntStream.range(0, CONVERSATIONS)
                .mapToObj(index -> Conversation.random(index, new Random(random.nextLong()))).toList();
        List<SimProvider> providers = new ArrayList<>(OPENAI_PROVIDERS);
        conversations.stream().filter(c -> c.provider.gemini()).forEach(c -> providers.add(c.provider));
        // The one program allowed is sleep, to stop a turn in; as many at once as there are clients.
        SecuritySettings security = SecuritySettings.defaults().withCommands(CommandPolicy.resolve(List.of("sleep"), Map.of()),
                new ProcessRunner.Limits(Duration.ofSeconds(10), 1 << 20, CLIENTS));
        long started = System.nanoTime();
        Map<Integer, List<SimRequest>> requests;
        try (ServerHarness server = ServerHarness.builder(data, scripts).security(security).providers(providers).start()) {
            runClients(server, conversations, random);
            assertThat(turnsRun).hasValue(TURNS);
            assertThat(attachments.get()).as("turns that attached a document").isGreaterThan(TURNS / 20);
            assertThat(images.get()).as("turns that attached an image").isGreaterThan(TURNS / 20);
            assertThat(scripts.unplanned()).as("requests nothing was planned for").isZero();
            assertThat(server.server.metrics().cacheBreaks()).as("cache breaks").isZero();

            long storedCuts = checkStoredConversations(server, conversations);
            requests = byConversation(server.sim.requests());
            long cutsSeen = checkEveryRequestReusedThePreviousOne(requests, conversations);
            assertThat(cutsSeen).as("context cuts the simulation saw, stored in transcripts, counted in the metrics")
                    .isPositive().isEqualTo(storedCuts).isEqualTo(contextCutsCounted(server));
            int requestsSent = requests.values().stream().mapToInt(List::size).sum();
            assertThat(cutsSeen).as("cuts are rare steps, not a window sliding with every request (even on 2-3k-token windows)")
                    .isLessThan(requestsSent / 5);
            System.out.printf("RandomConversationsCacheTest: %d turns %s, %d requests, %d context cuts%n", turnsRun.get(),
                    new TreeMap<>(endings), requestsSent, cutsSeen);
        }
        try (ServerHarness restarted = ServerHarness.builder(data, scripts).security(security).providers(providers).start()) {
            checkReloadedConversations(restarted, conversations, requests);
        }
        System.out.printf("RandomConversationsCacheTest: %.1f s%n", (System.nanoTime() - started) / 1e9);
    }

    /**
     * A conversation as the test drives it: on its provider, with its own random turns, owned by one
     * client; the entries its turns must have left, as its client saw them; and its entries as the
     * server held them in memory at the end.
     */
    private static final class Conversation {
        final int index;
        final SimProvider provider;
        final RandomTurns turns;
        final List<Seen> seen = new ArrayList<>();
        String id;
        int turnCount;
        List<StoredEntry> entries;

        private Conversation(int index, SimProvider provider, RandomTurns turns) {
            this.index = index;
            this.provider = provider;
            this.turns = turns;
        }

        /**
         * A third in Gemini's format, each on its own model: the simulated Gemini cache has no key (as
         * Gemini's implicit cache), so each model's cache is one conversation's, as a prompt cache key makes
         * it for OpenAI's format. A tenth with the simulation's large context window, the others small.
         */
        static Conversation random(int index, Random random) {
            boolean gemini = random.nextInt(3) == 0;
            int window = random.nextInt(10) == 0 ? LARGE_WINDOW : SMALL_WINDOWS[random.nextInt(SMALL_WINDOWS.length)];
            SimProvider provider;
            if (gemini) {
                String model = "skillforge-sim-gemini-" + (window == LARGE_WINDOW && random.nextBoolean() ? "pro-" : "flash-") + index;
                provider = SimProvider.gemini("gemini-" + index, model, window);
            } else {
                List<SimProvider> fitting = OPENAI_PROVIDERS.stream().filter(p -> p.contextWindow() == window).toList();
                provider = fitting.get(random.nextInt(fitting.size()));
            }
            return new Conversation(index, provider, new RandomTurns(random, "c" + index, gemini));
        }

        /** Remembers what the client of a turn saw, as entries: its message, then each answer and tool output. */
        void saw(String message, List<SseClient.Event> events) {
            seen.add(new Seen("user", message));
            for (SseClient.Event event : events) {
                switch (event.type()) {
                    case "raw-content" -> seen.add(new Seen("assistant", event.text("rawContent")));
                    case "tool-output" -> seen.add(new Seen("tool", event.text("toolOutput")));
                    default -> {
                    }
                }
            }
        }

        /** The simulation's cache rule for this conversation's requests. */
        CacheRule cacheRule() {
            return provider.gemini() ? CacheRule.forGeminiModel(provider.model()) : CacheRule.OPENAI;
        }
    }

    /** An entry as a client saw it: the person's message, an answer ({@code raw-content}), or tool output. */
    private record Seen(String kind, String content) {
    }

    /** {@value #CLIENTS} clients on virtual threads, each with its own conversations, {@value #TURNS} turns in all. */
    private void runClients(ServerHarness server, List<Conversation> conversations, Random random) throws Exception {
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> running = new ArrayList<>();
            for (int client = 0; client < CLIENTS; client++) {
                List<Conversation> own = IntStream.iterate(client, i -> i < CONVERSATIONS, i -> i + CLIENTS).mapToObj(conversations::get).toList();
                int turns = TURNS / CLIENTS + (client < TURNS % CLIENTS ? 1 : 0);
                Random order = new Random(random.nextLong());
                running.add(clients.submit(() -> {
                    drive(server, own, turns, order);
                    return null;
                }));
            }
            for (Future<?> client : running) {
                try {
                    client.get();
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof AssertionError error ? error : new AssertionError(e.getCause());
                }
            }
        }
    }

    /** One client: creates its conversations, then runs {@code turns} turns, each on one of them at random. */
    private void drive(ServerHarness server, List<Conversation> own, int turns, Random order) throws Exception {
        try {
            for (Conversation conversation : own) {
                SseClient.Answer created = SseClient.send("POST", server.url("/api/conversations"),
                        Json.write(Json.object().put("provider", conversation.provider.name())));
                assertThat(created.status()).as("conversation %d created: %s", conversation.index, created.body()).isEqualTo(201);
                conversation.id = created.json().path("id").asText();
            }
            for (int turn = 0; turn < turns && !failed.get(); turn++) {
                Conversation conversation = own.get(order.nextInt(own.size()));
                conversation.turnCount++;
                TurnPlan plan = conversation.turns.next(ConversationScripts.marker(conversation.index), conversation.turnCount);
                List<SseClient.Event> events = runTurn(server, conversation, plan);
                checkTurn(conversation, plan, events);
                conversation.saw(plan.message(), events);
                turnsRun.incrementAndGet();
            }
        } catch (AssertionError | Exception e) {
            failed.set(true); // the other clients stop too
            throw e;
        }
    }

    /** Sends the turn's message and follows its events to the end, stopping the turn where the plan says. */
    private List<SseClient.Event> runTurn(ServerHarness server, Conversation conversation, TurnPlan plan) throws Exception {
        scripts.plan(conversation.index, plan.replies());
        String path = "/api/conversations/" + conversation.id;
        HttpResponse<InputStream> response = SseClient.open(server.url(path + "/messages"), Json.write(message(conversation, plan)));
        if (response.statusCode() != 200) {
            throw new AssertionError("turn " + conversation.turnCount + " of conversation " + conversation.index + " (" + conversation.id
                    + ") was answered " + response.statusCode() + ": " + new String(response.body().readAllBytes(), StandardCharsets.UTF_8));
        }
        Predicate<SseClient.Event> stopNow = stopWhen(plan);
        List<SseClient.Event> events = new ArrayList<>();
        try (SseClient.EventReader reader = new SseClient.EventReader(response.body())) {
            for (SseClient.Event event = reader.next(); event != null; event = reader.next()) {
                events.add(event);
                if (stopNow.test(event)) {
                    assertThat(SseClient.postForAnswer(server.url(path + "/stop"), "").json().path("stopped").asBoolean()).isTrue();
                }
            }
        }
        return events;
    }

    /**
     * The turn's message; one turn in ten also attaches a small document, whose wrapped text the model reads before
     * the message on this request and every later one, and another one in ten a small image (PNG, or now and then a
     * JPEG), which the model sees as the same base64 on this request and every later one.
     */
    private ObjectNode message(Conversation conversation, TurnPlan plan) {
        ObjectNode body = Json.object().put("content", plan.message());
        int turn = conversation.turnCount;
        if ((conversation.index + turn) % 10 == 0) {
            String notes = "Notes for turn " + turn + ":\n- grind coarse\n- steep long\n";
            body.putArray("attachments").addObject().put("name", "notes-" + turn + ".md").put("mediaType", "text/markdown")
                    .put("data", Base64.getEncoder().encodeToString(notes.getBytes(StandardCharsets.UTF_8)));
            attachments.incrementAndGet();
        } else if ((conversation.index + turn) % 10 == 5) {
            boolean jpeg = turn % 3 == 0;
            int width = 8 + turn % 40;
            int height = 6 + conversation.index % 30;
            byte[] image = jpeg ? TestImages.jpeg(width, height) : TestImages.png(width, height);
            body.putArray("attachments").addObject().put("name", "shot-" + turn + (jpeg ? ".jpg" : ".png"))
                    .put("data", Base64.getEncoder().encodeToString(image));
            images.incrementAndGet();
        }
        return body;
    }

    /**
     * The turn ended as planned, its client saw the planned answers, its commands ended as they must,
     * and it asked for every reply planned.
     */
    private void checkTurn(Conversation conversation, TurnPlan plan, List<SseClient.Event> events) {
        String context = "turn " + conversation.turnCount + " of conversation " + conversation.index;
        assertThat(ending(events.getLast())).as("how %s ended: %s", context, events.getLast().data()).isEqualTo(expectedEnding(plan.ending()));
        assertThat(texts(events, "raw-content", "rawContent")).as("the answers of %s", context).isEqualTo(plan.assistantEntries());
        for (SseClient.Event result : events.stream().filter(e -> e.type().equals("tool-result")).toList()) {
            assertThat(result.data().path("exitCode").asInt()).as("%s: %s", context, result.data())
                    .isIn(exitCodes(result.text("command"), result.text("result")));
        }
        assertThat(scripts.remaining(conversation.index)).as("replies planned for %s and not asked for", context).isZero();
        endings.computeIfAbsent(ending(events.getLast()), k -> new AtomicInteger()).incrementAndGet();
    }

    /**
     * When the client stops the turn: once it has seen the text the stalled stream sends before it
     * stalls, or the start of the command to stop in.
     */
    private static Predicate<SseClient.Event> stopWhen(TurnPlan plan) {
        return switch (plan.ending()) {
            case TurnPlan.StopsInStream stop -> {
                String beforeStall = plan.textBeforeStall();
                StringBuilder seen = new StringBuilder();
                yield event -> isOf(event, "text", stop.iteration()) && seen.append(event.text("content")).toString().equals(beforeStall);
            }
            case TurnPlan.StopsInCommand stop -> event -> isOf(event, "tool-start", stop.iteration())
                    && event.text("command").equals(RandomTurns.SLEEP);
            default -> event -> false;
        };
    }

    private static boolean isOf(SseClient.Event event, String type, int iteration) {
        return event.type().equals(type) && event.data().path("iteration").asInt() == iteration;
    }

    /** {@code done} and its stop reason, or {@code error} and its code. */
    private static String ending(SseClient.Event last) {
        return last.type() + " " + (last.type().equals("done") ? last.text("stopReason") : last.text("code"));
    }

    private static String expectedEnding(TurnPlan.Ending ending) {
        return switch (ending) {
            case TurnPlan.Done done -> "done " + done.stopReason();
            case TurnPlan.Fails fails -> "error " + fails.code();
            case TurnPlan.StopsInStream stop -> "done cancelled";
            case TurnPlan.StopsInCommand stop -> "done cancelled";
        };
    }

    private static List<String> texts(List<SseClient.Event> events, String type, String field) {
        return events.stream().filter(e -> e.type().equals(type)).map(e -> e.text(field)).toList();
    }

    /**
     * The exit codes a command may end with: not run (after a stop or a failed call); the sleep a stop
     * kills; anything but a skill command refused, not run; a skill command succeeds, but the skill to get
     * may not exist (yet).
     */
    private static Set<Integer> exitCodes(String command, String result) {
        if (result.startsWith("[not run")) {
            return Set.of(AgentLoop.NOT_RUN_EXIT_CODE);
        }
        if (command.equals(RandomTurns.SLEEP)) {
            return Set.of(ProcessRunner.EXIT_STOPPED);
        }
        if (!command.startsWith("skill ")) {
            return Set.of(ProcessRunner.EXIT_REFUSED);
        }
        return command.startsWith("skill get ") ? Set.of(SkillCommands.EXIT_OK, SkillCommands.EXIT_ERROR) : Set.of(SkillCommands.EXIT_OK);
    }

    /**
     * Each conversation, as memory holds it: without its context cuts, it is what its clients saw; every
     * answer with commands is followed by their tool entry; and all of them together ran {@value #TURNS} turns.
     *
     * @return the context cuts stored
     */
    private static long checkStoredConversations(ServerHarness server, List<Conversation> conversations) {
        long cuts = 0;
        int turns = 0;
        for (Conversation conversation : conversations) {
            ConversationSnapshot snapshot = server.conversations.snapshot(Caller.LOCAL, conversation.id);
            List<StoredEntry> entries = snapshot.entries();
            conversation.entries = entries;
            assertThat(entries.stream().filter(e -> !isContextCut(e)).map(e -> new Seen(e.kind(), e.content())).toList())
                    .as("conversation %d as its client saw it", conversation.index).isEqualTo(conversation.seen);
            checkToolEntriesFollowTheirCommands(conversation, entries);
            cuts += entries.stream().filter(RandomConversationsCacheTest::isContextCut).count();
            turns += snapshot.turns().size();
        }
        assertThat(turns).as("turns stored").isEqualTo(TURNS);
        return cuts;
    }

    private static boolean isContextCut(StoredEntry entry) {
        return entry.kind().equals("context");
    }

    /** An answer with commands is followed by one tool entry with a {@code $ command} block for each, in order; no tool entry otherwise. */
    private static void checkToolEntriesFollowTheirCommands(Conversation conversation, List<StoredEntry> entries) {
        for (int i = 0; i < entries.size(); i++) {
            StoredEntry entry = entries.get(i);
            List<String> commands = entry.kind().equals("assistant") ? new ShellTagScanner().feed(entry.content()) : List.of();
            StoredEntry next = i + 1 < entries.size() ? entries.get(i + 1) : null;
            String context = "conversation " + conversation.index + ", entry " + entry.seq() + ": " + entry.content();
            assertThat(next != null && next.kind().equals("tool")).as("a tool entry after %s", context).isEqualTo(!commands.isEmpty());
            int at = -1;
            for (String command : commands) {
                at = next.content().indexOf("$ " + command + "\n", at + 1);
                assertThat(at).as("the block of %s, in order, in the tool entry after %s", command, context).isNotNegative();
            }
            if (!commands.isEmpty()) {
                assertThat(next.content()).as("the tool entry after %s", context).startsWith("$ " + commands.getFirst() + "\n");
            }
        }
    }

    /** The requests the simulation received, by conversation, in the order it received them. */
    private static Map<Integer, List<SimRequest>> byConversation(List<SimRequest> requests) {
        Map<Integer, List<SimRequest>> byConversation = new HashMap<>();
        for (SimRequest request : requests) {
            int conversation = ConversationScripts.conversationIn(request.body()).orElseThrow();
            byConversation.computeIfAbsent(conversation, k -> new ArrayList<>()).add(request);
        }
        return byConversation;
    }

    /**
     * Every request after a conversation's first starts with the whole previous one, and the
     * simulation's cache gave it what its rule allows for all of the previous prompt; or it is a context
     * cut: it starts with a new note instead.
     *
     * @return the context cuts seen
     */
    private static long checkEveryRequestReusedThePreviousOne(Map<Integer, List<SimRequest>> requests, List<Conversation> conversations) {
        long cuts = 0;
        for (Conversation conversation : conversations) {
            List<SimRequest> sent = requests.get(conversation.index);
            CacheRule rule = conversation.cacheRule();
            for (int i = 1; i < sent.size(); i++) {
                SimRequest previous = sent.get(i - 1);
                SimRequest request = sent.get(i);
                String context = "request " + (i + 1) + " of conversation " + conversation.index + " (" + conversation.provider + ")";
                if (mismatch(request.conversation(), previous.conversation()) < 0) {
                    assertThat(request.cachedTokens()).as("cached tokens of %s, after a prompt of %d tokens", context, previous.promptTokens())
                            .isEqualTo(rule.cachedTokens((int) previous.promptTokens(), (int) request.promptTokens()));
                } else {
                    assertThat(firstEntry(request)).as("%s does not start with the previous one: a context cut", context)
                            .contains("[Context note]").isNotEqualTo(firstEntry(previous));
                    cuts++;
                }
            }
        }
        return cuts;
    }

    /**
     * After a restart, each conversation reads back from the database as memory held it, and what its
     * provider is sent next (the JSON export: OpenAI's messages, Gemini's contents) starts with all of
     * the last request it was sent.
     */
    private static void checkReloadedConversations(ServerHarness restarted, List<Conversation> conversations,
                                                   Map<Integer, List<SimRequest>> requests) throws Exception {
        for (Conversation conversation : conversations) {
            assertThat(restarted.conversations.snapshot(Caller.LOCAL, conversation.id).entries()).as("conversation %d read back", conversation.index)
                    .isEqualTo(conversation.entries);
            JsonNode next = SseClient.get(restarted.url("/api/conversations/" + conversation.id + "/export?format=json")).json();
            SimRequest last = requests.get(conversation.index).getLast();
            assertThat(mismatch(conversation.provider.gemini() ? next.path("contents") : next, last.conversation()))
                    .as("the first message of conversation %d's last request that its next one does not repeat", conversation.index)
                    .isNegative();
        }
    }

    /** Where {@code messages} stop repeating {@code previous} (JSON arrays), or -1 when they start with all of it. */
    private static int mismatch(JsonNode messages, JsonNode previous) {
        for (int i = 0; i < previous.size(); i++) {
            if (i >= messages.size() || !messages.get(i).equals(previous.get(i))) {
                return i;
            }
        }
        return -1;
    }

    /** The first message after the system prompt, as sent. */
    private static String firstEntry(SimRequest request) {
        return request.conversation().get(request.format().equals("gemini") ? 0 : 1).toString();
    }

    private static long contextCutsCounted(ServerHarness server) {
        return server.server.metrics().scrape().lines().filter(line -> line.startsWith("skillforge_context_cuts_total"))
                .mapToLong(line -> (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).sum();
    }
}
