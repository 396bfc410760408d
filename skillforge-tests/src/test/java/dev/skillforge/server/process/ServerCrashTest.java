package dev.skillforge.server.process;

import dev.skillforge.testkit.ForgeClient;
import dev.skillforge.testkit.ServerProcess;
import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.testkit.ForgeClient.EventStream;
import dev.skillforge.testkit.ForgeClient.Received;
import dev.skillforge.server.provider.sim.SimProviderServer;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.server.provider.sim.SimRequest;
import dev.skillforge.server.provider.sim.SimResponder;
import dev.skillforge.testkit.SimScript;
import dev.skillforge.server.provider.sim.TokenCounter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.skillforge.testkit.ForgeClient.ofType;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.SoftAssertions.assertSoftly;

/**
 * A run belongs to the server, and what it stored survives the server: real server processes on
 * the embedded SQLite database, killed with {@code kill -9} or stopped with {@code kill -TERM} in the
 * middle of a turn, then started again on the same data folder. The flush window under test is
 * {@value #FLUSH_WINDOW_MILLIS} ms: every turn whose {@code done} reached the client that long
 * before the kill is there after the restart, complete and verbatim; a turn cut by the kill is
 * shown {@code interrupted}, never complete.
 */
class ServerCrashTest {

    /** The promised loss window: writes older than this when the process dies are on disk. */
    static final long FLUSH_WINDOW_MILLIS = 100;

    private static final String SKILL_SET = """
            skill set green-tea
            ---
            name: green-tea
            description: Brew green tea without bitterness.
            ---
            # Green tea
            Steep at 80 °C for 2 minutes; never boiling water.
            """;

    @TempDir
    Path dataDir;

    @Test
    void aKillMinus9MidTurnKeepsEveryFinishedTurnVerbatimAndMarksTheCutTurnInterrupted() throws Exception {
        SimScript script = new SimScript(
                SimReply.of("Let me look.\n", "<shell>skill ", "list</shell>"),
                SimReply.of("You have ", "no skills yet."),
                SimReply.of("Saving it:\n<shell>", SKILL_SET.substring(0, 30), SKILL_SET.substring(30) + "</shell>"),
                SimReply.of("Saved ✓ — ", "`green-tea` is ready."),
                SimReply.of("Once upon ", "a time…", " never sent").withFault(new SimReply.Stall(2)),
                SimReply.of("Yes, ", "I'm back."));
        try (SimProviderServer sim = SimProviderServer.startOnLoopback(script, SimProviderServer.Options.DEFAULT.recordingRequests());
             ServerProcess first = ServerProcess.start("crash-kill-1", dataDir, providerEnv(sim))) {
            String id = ForgeClient.create(first);
            List<Received> turn0 = ForgeClient.turn(first, id, "Which skills do I have?");
            List<Received> turn1 = ForgeClient.turn(first, id, "Keep this tea recipe as a skill, please.");
            assertFinished(turn0);
            assertFinished(turn1);
            JsonNode beforeKill = ForgeClient.conversation(first, id);

            try (EventStream cut = ForgeClient.open(first, id, "Tell me a long story.")) {
                assertThat(cut.status()).isEqualTo(200);
                cut.until("text");
                Received lastSeen = cut.until("text"); // the provider stalls after these two chunks
                long doneAt = turn1.getLast().atNanos();
                sleepUntil(Math.max(doneAt, lastSeen.atNanos()) + TimeUnit.MILLISECONDS.toNanos(FLUSH_WINDOW_MILLIS));
                first.kill();
                assertThat(cut.next()).as("the stream ends with the server, without a done event").isNull();
            }

            try (ServerProcess second = ServerProcess.start("crash-kill-2", dataDir, providerEnv(sim))) {
                JsonNode afterRestart = ForgeClient.conversation(second, id);

                assertThat(afterRestart.path("running").asBoolean()).as("nothing runs after a restart").isFalse();
                assertThat(afterRestart.path("turns")).extracting(t -> t.path("status").asText())
                        .as("turn statuses after the restart").containsExactly("complete", "complete", "interrupted");
                assertThat(entries(afterRestart).subList(0, entries(beforeKill).size()))
                        .as("the finished turns' entries, exactly as served before the kill")
                        .isEqualTo(entries(beforeKill));
                assertTurnMatches(afterRestart.path("turns").get(0), "Which skills do I have?", turn0);
                assertTurnMatches(afterRestart.path("turns").get(1), "Keep this tea recipe as a skill, please.", turn1);
                JsonNode interrupted = afterRestart.path("turns").get(2);
                assertThat(interrupted.path("userMessage").asText()).isEqualTo("Tell me a long story.");
                assertThat(interrupted.path("iterations")).as("the cut answer is not stored as if it were whole").isEmpty();
                assertSeqWithoutGaps(afterRestart);

                List<Received> after = ForgeClient.turn(second, id, "Are you still there?");
                assertFinished(after);
                JsonNode continued = ForgeClient.conversation(second, id);
                assertThat(continued.path("turns")).extracting(t -> t.path("status").asText())
                        .containsExactly("complete", "complete", "interrupted", "complete");
                assertThat(continued.path("turns").get(3).path("turn").asInt()).isEqualTo(3);
                assertTurnMatches(continued.path("turns").get(3), "Are you still there?", after);
                assertThat(continued.path("turns").get(1)).as("the turn before is untouched by the new one")
                        .isEqualTo(afterRestart.path("turns").get(1));
                assertSeqWithoutGaps(continued);

                // The prompt only grows, across the crash too: the new request extends the cut one.
                List<SimRequest> requests = sim.requests();
                assertThat(requests).hasSize(6);
                assertThat(messagesOf(requests.get(5)).subList(0, messagesOf(requests.get(4)).size()))
                        .isEqualTo(messagesOf(requests.get(4)));
                assertThat(requests.get(5).cacheKey()).isEqualTo(requests.get(4).cacheKey());
            }
        }
    }

    /** A turn that outlives the grace period a SIGTERM gives (here none: its provider stalls for ever) is stopped and recorded cancelled. */
    @Test
    void aGracefulShutdownMidTurnRecordsTheTurnCancelledAndLosesNothing() throws Exception {
        SimScript script = new SimScript(
                SimReply.of("Let me look.\n", "<shell>skill list</shell>"),
                SimReply.of("You have ", "no skills yet."),
                SimReply.of("Once upon ", "a time…", " never sent").withFault(new SimReply.Stall(2)),
                SimReply.of("Still ", "here."));
        try (SimProviderServer sim = SimProviderServer.startOnLoopback(script, SimProviderServer.Options.DEFAULT.recordingRequests());
             ServerProcess first = ServerProcess.start("crash-term-1", dataDir, withoutGrace(providerEnv(sim)))) {
            String id = ForgeClient.create(first);
            List<Received> turn0 = ForgeClient.turn(first, id, "Which skills do I have?");
            assertFinished(turn0);

            try (EventStream running = ForgeClient.open(first, id, "Tell me a long story.")) {
                running.until("text");
                running.until("text");
                Duration exit = first.stop(); // SIGTERM: no flush window to wait for
                System.out.printf("graceful shutdown mid-turn took %d ms%n", exit.toMillis());
                assertThat(exit).as("the shutdown is quick; the output:\n%s", first.tail()).isLessThan(Duration.ofSeconds(15));
            }

            try (ServerProcess second = ServerProcess.start("crash-term-2", dataDir, providerEnv(sim))) {
                JsonNode afterRestart = ForgeClient.conversation(second, id);
                assertThat(afterRestart.path("turns")).extracting(t -> t.path("status").asText())
                        .containsExactly("complete", "cancelled");
                assertTurnMatches(afterRestart.path("turns").get(0), "Which skills do I have?", turn0);
                JsonNode cancelled = afterRestart.path("turns").get(1);
                assertThat(cancelled.path("userMessage").asText()).isEqualTo("Tell me a long story.");
                assertThat(cancelled.path("stopReason").asText()).isEqualTo("cancelled");
                assertThat(cancelled.path("iterations")).extracting(i -> i.path("rawContent").asText())
                        .as("the text the person saw before the shutdown is kept").containsExactly("Once upon a time…");
                assertSeqWithoutGaps(afterRestart);

                List<Received> after = ForgeClient.turn(second, id, "And now?");
                assertFinished(after);
                JsonNode continued = ForgeClient.conversation(second, id);
                assertThat(continued.path("turns")).extracting(t -> t.path("status").asText())
                        .containsExactly("complete", "cancelled", "complete");
                assertThat(continued.path("turns")).extracting(t -> t.path("turn").asInt()).containsExactly(0, 1, 2);
                assertTurnMatches(continued.path("turns").get(0), "Which skills do I have?", turn0);
                assertTurnMatches(continued.path("turns").get(2), "And now?", after);
                assertSeqWithoutGaps(continued);
            }
        }
    }

    /**
     * Kills at random moments (seeded: a failure names its seed; {@code -Dcrash.seed=N} repeats it)
     * across short turns of one conversation, each kill followed by a restart on the same data folder
     * and more turns on the same conversation; after every restart the invariant holds for every turn
     * sent so far.
     */
    @Test
    void afterEachOfTenKillsAtRandomMomentsEveryTurnDoneBeforeTheFlushWindowIsCompleteAndNoTurnIsHalfWritten() throws Exception {
        long seed = Long.getLong("crash.seed", System.nanoTime());
        Random random = new Random(seed);
        List<SeenTurn> sent = new ArrayList<>();
        try (SimProviderServer sim = SimProviderServer.startOnLoopback(new ShortTurns(), SimProviderServer.Options.DEFAULT.recordingRequests())) {
            ServerProcess server = ServerProcess.start("crash-random-0", dataDir, providerEnv(sim));
            try {
                String id = ForgeClient.create(server);
                for (int kill = 1; kill <= 10; kill++) {
                    Chatter chatter = new Chatter(server, id, kill);
                    Thread client = Thread.ofPlatform().name("chatter-" + kill).start(chatter);
                    int turnsFirst = random.nextInt(4);
                    long extraMillis = random.nextInt(260);
                    chatter.awaitDone(turnsFirst, Duration.ofSeconds(20));
                    Thread.sleep(extraMillis);
                    long killedAt = System.nanoTime();
                    server.kill();
                    client.join(Duration.ofSeconds(30));
                    chatter.turns.forEach(turn -> turn.killedAtNanos = killedAt);
                    sent.addAll(chatter.turns);

                    server = ServerProcess.start("crash-random-" + kill, dataDir, providerEnv(sim));
                    String context = "seed " + seed + ", kill " + kill + " (after " + turnsFirst + " turns + " + extraMillis
                            + " ms), server log " + server.log();
                    JsonNode restarted = ForgeClient.conversation(server, id);
                    Long lastDone = chatter.turns.stream().filter(t -> t.finished).map(t -> t.doneAtNanos).reduce((x, y) -> y).orElse(null);
                    List<String> statuses = statuses(restarted);
                    System.out.printf("%s: this life %d turns done (the last %s before the kill), %d sent; stored: %d turns,"
                                    + " the last %s, %d interrupted in all%n",
                            context, chatter.done.get(), lastDone == null ? "none" : (killedAt - lastDone) / 1_000_000 + " ms",
                            chatter.turns.size(), statuses.size(), statuses.isEmpty() ? "-" : statuses.getLast(),
                            statuses.stream().filter("interrupted"::equals).count());
                    assertInvariant(restarted, sent, context);
                }
                List<Received> afterAll = ForgeClient.turn(server, id, ShortTurns.message(11, 0, 1));
                assertFinished(afterAll);
                JsonNode end = ForgeClient.conversation(server, id);
                assertThat(end.path("turns").get(end.path("turns").size() - 1).path("userMessage").asText())
                        .isEqualTo(ShortTurns.message(11, 0, 1));
                assertSeqWithoutGaps(end);
            } finally {
                server.close();
            }
        }
    }

    // ------------------------------------------------------------------------------ the invariant

    /**
     * What a restart shows, against what the client saw over every life of the server: turns
     * numbered 0..n-1, in the order they were sent, each complete or interrupted; every turn whose
     * {@code done} arrived {@value #FLUSH_WINDOW_MILLIS} ms before its kill is complete; every
     * complete turn is whole (all iterations, the output of every command that ran) and verbatim.
     */
    private static void assertInvariant(JsonNode conversation, List<SeenTurn> sent, String context) {
        Map<String, Integer> sentIndex = new HashMap<>();
        for (int i = 0; i < sent.size(); i++) {
            sentIndex.put(sent.get(i).content, i);
        }
        Map<String, String> storedStatus = new HashMap<>();
        JsonNode turns = conversation.path("turns");
        assertSoftly(soft -> {
            int previous = -1;
            for (int i = 0; i < turns.size(); i++) {
                JsonNode stored = turns.get(i);
                String status = stored.path("status").asText();
                String message = stored.path("userMessage").asText();
                storedStatus.put(message, status);
                soft.assertThat(stored.path("turn").asInt()).as("%s: turn numbers", context).isEqualTo(i);
                soft.assertThat(status).as("%s: turn %d ends complete or interrupted, nothing else", context, i)
                        .isIn("complete", "interrupted");
                Integer index = sentIndex.get(message);
                soft.assertThat(index).as("%s: turn %d's message '%s' was sent by the client", context, i, message).isNotNull();
                if (index == null) {
                    continue;
                }
                soft.assertThat(index).as("%s: turn %d is stored in the order sent", context, i).isGreaterThan(previous);
                previous = index;
                if (status.equals("complete")) {
                    assertWholeAndVerbatim(soft, stored, sent.get(index), context + ": turn " + i);
                }
            }
            for (SeenTurn turn : sent) {
                if (turn.finished && turn.killedAtNanos - turn.doneAtNanos >= TimeUnit.MILLISECONDS.toNanos(FLUSH_WINDOW_MILLIS)) {
                    soft.assertThat(storedStatus.get(turn.content))
                            .as("%s: '%s' was done %d ms before the kill", context, turn.content,
                                    (turn.killedAtNanos - turn.doneAtNanos) / 1_000_000)
                            .isEqualTo("complete");
                }
            }
        });
        assertSeqWithoutGaps(conversation);
    }

    private static void assertWholeAndVerbatim(org.assertj.core.api.SoftAssertions soft, JsonNode stored, SeenTurn client, String context) {
        JsonNode iterations = stored.path("iterations");
        // Whole: every iteration with its raw content, every command that ran with its output.
        soft.assertThat(iterations.size()).as("%s: iterations of a complete turn", context).isEqualTo(client.expectedIterations);
        for (int it = 0; it < iterations.size(); it++) {
            JsonNode iteration = iterations.get(it);
            soft.assertThat(iteration.path("rawContent").isTextual()).as("%s, iteration %d: raw content", context, it).isTrue();
            boolean ranCommands = false;
            for (JsonNode command : iteration.path("commands")) {
                ranCommands |= command.path("status").asText().equals("completed");
            }
            if (ranCommands || it + 1 < iterations.size()) {
                soft.assertThat(iteration.path("toolOutput").isTextual())
                        .as("%s, iteration %d ran commands, so it has their output", context, it).isTrue();
            }
        }
        // Verbatim: what the client was streamed, as far as it saw the turn.
        List<String> raw = ofType(client.events, "raw-content").stream().map(e -> e.text("rawContent")).toList();
        List<String> tool = ofType(client.events, "tool-output").stream().map(e -> e.text("toolOutput")).toList();
        for (int it = 0; it < raw.size() && it < iterations.size(); it++) {
            soft.assertThat(iterations.get(it).path("rawContent").asText()).as("%s, iteration %d: raw content verbatim", context, it)
                    .isEqualTo(raw.get(it));
        }
        for (int it = 0; it < tool.size() && it < iterations.size(); it++) {
            soft.assertThat(iterations.get(it).path("toolOutput").asText()).as("%s, iteration %d: tool output verbatim", context, it)
                    .isEqualTo(tool.get(it));
        }
    }

    /** The entries are numbered 0..n-1, and each turn's entries are together, starting with its message. */
    static void assertSeqWithoutGaps(JsonNode conversation) {
        List<Integer> seqs = new ArrayList<>();
        List<Integer> turnOfEntry = new ArrayList<>();
        List<String> roles = new ArrayList<>();
        for (JsonNode entry : conversation.path("entries")) {
            seqs.add(entry.path("seq").asInt());
            turnOfEntry.add(entry.path("turn").asInt());
            roles.add(entry.path("role").asText());
        }
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < seqs.size(); i++) {
            expected.add(i);
        }
        assertThat(seqs).as("entry seq numbers of %s", conversation.path("id").asText()).isEqualTo(expected);
        assertThat(turnOfEntry).as("entry turns are in order, each turn's entries together").isSorted();
        for (int i = 0; i < turnOfEntry.size(); i++) {
            boolean firstOfTurn = i == 0 || !turnOfEntry.get(i).equals(turnOfEntry.get(i - 1));
            assertThat(roles.get(i).equals("user")).as("entry %d (turn %d) is a user message exactly when it starts its turn",
                    i, turnOfEntry.get(i)).isEqualTo(firstOfTurn);
        }
    }

    // ------------------------------------------------------------------------------ helpers

    /** The settings with no grace period for running turns at a SIGTERM ({@code FORGE_SHUTDOWN_GRACE_SECONDS=0}). */
    static Map<String, String> withoutGrace(Map<String, String> env) {
        Map<String, String> settings = new HashMap<>(env);
        settings.put("FORGE_SHUTDOWN_GRACE_SECONDS", "0");
        return settings;
    }

    static Map<String, String> providerEnv(SimProviderServer sim) {
        return Map.of("FORGE_PROVIDER", "openai", "FORGE_BASE_URL", sim.baseUrl(), "FORGE_MODEL", SimProviderServer.MODEL,
                "FORGE_PROVIDER_TIMEOUT_SECONDS", "30");
    }

    private static void assertFinished(List<Received> events) {
        assertThat(events).as("the turn's events").isNotEmpty();
        assertThat(events.getLast().type()).as("the last event of %s", events.stream().map(Received::type).toList()).isEqualTo("done");
        assertThat(events.getLast().text("stopReason")).isEqualTo("complete");
    }

    /** A stored turn shows the message, and per iteration the raw content and tool output the client was streamed. */
    private static void assertTurnMatches(JsonNode turn, String message, List<Received> events) {
        assertThat(turn.path("status").asText()).isEqualTo("complete");
        assertThat(turn.path("userMessage").asText()).isEqualTo(message);
        List<String> raw = ofType(events, "raw-content").stream().map(e -> e.text("rawContent")).toList();
        List<String> tool = ofType(events, "tool-output").stream().map(e -> e.text("toolOutput")).toList();
        assertThat(turn.path("iterations")).extracting(i -> i.path("rawContent").asText()).isEqualTo(raw);
        List<String> storedTool = new ArrayList<>();
        turn.path("iterations").forEach(i -> {
            if (i.has("toolOutput")) {
                storedTool.add(i.path("toolOutput").asText());
            }
        });
        assertThat(storedTool).isEqualTo(tool);
    }

    private static List<String> statuses(JsonNode conversation) {
        List<String> statuses = new ArrayList<>();
        conversation.path("turns").forEach(t -> statuses.add(t.path("status").asText()));
        return statuses;
    }

    private static List<JsonNode> entries(JsonNode conversation) {
        List<JsonNode> entries = new ArrayList<>();
        conversation.path("entries").forEach(entries::add);
        return entries;
    }

    private static List<JsonNode> messagesOf(SimRequest request) {
        List<JsonNode> messages = new ArrayList<>();
        request.messages().forEach(messages::add);
        return messages;
    }

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        long left = nanoTime - System.nanoTime();
        if (left > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }

    /** What the client saw of one turn. */
    static final class SeenTurn {
        final String content;
        final int expectedIterations;
        final List<Received> events = new CopyOnWriteArrayList<>();
        volatile long doneAtNanos;
        volatile boolean finished;
        volatile long killedAtNanos;

        SeenTurn(String content, int expectedIterations) {
            this.content = content;
            this.expectedIterations = expectedIterations;
        }
    }

    /** Sends short turns one after another until the server dies. */
    private static final class Chatter implements Runnable {
        private final ServerProcess server;
        private final String id;
        private final int round;
        final List<SeenTurn> turns = new CopyOnWriteArrayList<>();
        private final AtomicInteger done = new AtomicInteger();
        private volatile String stoppedBecause = "(still sending)";

        Chatter(ServerProcess server, String id, int round) {
            this.server = server;
            this.id = id;
            this.round = round;
        }

        @Override
        public void run() {
            for (int n = 0; ; n++) {
                int commands = n % 3; // none, one, two commands in the first iteration
                SeenTurn turn = new SeenTurn(ShortTurns.message(round, n, commands), commands == 0 ? 1 : 2);
                turns.add(turn); // sent: the server may have stored it even if the answer never arrives
                try (EventStream stream = ForgeClient.open(server, id, turn.content)) {
                    if (stream.status() != 200) {
                        turns.remove(turn);
                        stoppedBecause = "the server answered " + stream.status() + ": " + stream.refusal();
                        return;
                    }
                    Received event;
                    while ((event = stream.next()) != null) {
                        turn.events.add(event);
                        if (event.type().equals("done")) {
                            turn.doneAtNanos = event.atNanos();
                            turn.finished = true;
                            synchronized (this) {
                                done.incrementAndGet();
                                notifyAll();
                            }
                        }
                    }
                    if (!turn.finished) {
                        return; // cut by the kill
                    }
                } catch (Exception e) {
                    stoppedBecause = e.toString();
                    return; // the server is gone
                }
            }
        }

        synchronized void awaitDone(int count, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (done.get() < count) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    throw new AssertionError("only " + done.get() + " of " + count + " turns finished in " + timeout
                            + "; the client stopped: " + stoppedBecause + "; the server's output:\n" + server.tail());
                }
                wait(left);
            }
        }
    }

    /**
     * The provider for short turns: the message says how many commands the first answer holds
     * ({@code "… with N commands"}); after tool output comes a closing answer. Chunks are a few
     * milliseconds apart, so a kill lands anywhere in a turn.
     */
    static final class ShortTurns implements SimResponder {

        static String message(int round, int n, int commands) {
            return "Round " + round + ", turn " + n + " with " + commands + " commands";
        }

        @Override
        public SimReply reply(List<TokenCounter.Message> messages) {
            TokenCounter.Message last = messages.getLast();
            int salt = Math.floorMod(last.content().hashCode(), 7);
            Duration delay = Duration.ofMillis(3 + salt * 3);
            if (last.content().startsWith("[Shell Output]")) {
                return SimReply.of("All ", "done (", salt + ").").withDelay(delay);
            }
            int commands = Integer.parseInt(last.content().replaceAll(".* with (\\d) commands$", "$1"));
            return switch (commands) {
                case 0 -> SimReply.of("A plain ", "answer to: ", last.content()).withDelay(delay);
                case 1 -> SimReply.of("Checking.\n<shell>skill ", "list</shell>").withDelay(delay);
                default -> SimReply.of("Two things:\n<shell>skill list</shell>\n", "<shell>skill help</shell>").withDelay(delay);
            };
        }
    }
}
