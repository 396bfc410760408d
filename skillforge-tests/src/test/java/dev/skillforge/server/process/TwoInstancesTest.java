package dev.skillforge.server.process;

import dev.skillforge.testkit.ForgeClient;
import dev.skillforge.testkit.ServerProcess;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.skillforge.server.json.Json;
import dev.skillforge.testkit.ForgeClient.EventStream;
import dev.skillforge.testkit.ForgeClient.Received;
import dev.skillforge.server.provider.sim.SimProviderServer;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.server.provider.sim.SimRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.sql.DataSource;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two server processes, A and B, on one PostgreSQL database (embedded, started once by this class)
 * and one simulated provider: a conversation moves between them with its whole history, byte for
 * byte, and two turns on one conversation at once, on one instance or on two, never interleave: the
 * second is refused with 409 and a JSON error. A third process, killed with {@code kill -9}
 * mid-turn and restarted, shows the crash test on PostgreSQL too. After each test the database
 * itself is checked: entries numbered 0..n-1, each turn's entries together.
 */
class TwoInstancesTest {

    private static SharedPostgres postgres;
    private static DataSource database;
    private static SimProviderServer sim;
    /** Tool output gets a fixed closing answer; unknown messages an answer that says so, so a test sees what it did not script. */
    private static final MessageReplies replies = new MessageReplies(last -> last.startsWith("[Shell Output]")
            ? SimReply.of("You have ", "no skills yet.") : SimReply.of("(unscripted message: ", last, ")"));
    private static ServerProcess a;
    private static ServerProcess b;
    private static Map<String, String> env;
    private static final Duration HANDOVER_WAIT = Duration.ofSeconds(5);

    @TempDir
    static Path dataDirs;

    @BeforeAll
    static void startDatabaseProviderAndTwoServers() throws Exception {
        postgres = SharedPostgres.start("skillforge_two");
        database = postgres.database();
        sim = SimProviderServer.startOnLoopback(replies, SimProviderServer.Options.DEFAULT.recordingRequests());
        env = postgres.settings(ServerCrashTest.providerEnv(sim));
        // An idle conversation is handed over within one lease renewal (200 ms) on a quiet machine; on CI's two busy
        // cores one hand-over once took longer than the default 2 s wait, and these tests are about who may write, not
        // how fast: a wait with room, which the busy answer below is bounded by.
        env.put("FORGE_HANDOVER_WAIT_MILLIS", Long.toString(HANDOVER_WAIT.toMillis()));
        a = ServerProcess.start("two-instances-A", dataDirs.resolve("a"), env);
        b = ServerProcess.start("two-instances-B", dataDirs.resolve("b"), env);
    }

    @AfterAll
    static void stopAll() throws Exception {
        for (AutoCloseable resource : new AutoCloseable[] {a, b, sim, postgres}) {
            if (resource != null) {
                resource.close();
            }
        }
    }

    @Test
    void aTurnOnEitherInstanceSeesTheHistoryTheOtherWroteByteForByte() throws Exception {
        String id = ForgeClient.create(a);
        replies.on("A1: which skills do I have?", SimReply.of("Let me look.\n", "<shell>skill list</shell>"));
        replies.on("B1: and what did I ask first?", SimReply.of("You asked ", "which skills you have — ", "ünïcode kept."));
        replies.on("A2: thanks, bye", SimReply.of("Bye ", "👋"));

        assertComplete(ForgeClient.turn(a, id, "A1: which skills do I have?"));
        assertComplete(ForgeClient.turn(b, id, "B1: and what did I ask first?"));
        assertComplete(ForgeClient.turn(a, id, "A2: thanks, bye"));

        List<SimRequest> requests = requestsOf(id);
        assertThat(requests).as("A1 (two iterations), B1, A2").hasSize(4);
        SimRequest lastOfA = requests.get(1);
        SimRequest ofB = requests.get(2);
        SimRequest backOnA = requests.get(3);
        // B sends what A sent, byte for byte, then A's answer and B's message: the prompt only grows.
        assertThat(ofB.body()).as("B's request starts with A's messages as A sent them")
                .startsWith(messagesWithoutClosingBracket(lastOfA) + ",");
        assertThat(ofB.messages()).isEqualTo(extended(lastOfA, "You have no skills yet.", "B1: and what did I ask first?"));
        assertThat(backOnA.body()).as("A's next request starts with B's messages as B sent them")
                .startsWith(messagesWithoutClosingBracket(ofB) + ",");
        assertThat(backOnA.messages()).isEqualTo(extended(ofB, "You asked which skills you have — ünïcode kept.", "A2: thanks, bye"));
        assertThat(requests).extracting(SimRequest::cacheKey).containsOnly(id);

        JsonNode onA = ForgeClient.conversation(a, id);
        assertThat(onA.path("turns")).extracting(t -> t.path("turn").asInt()).containsExactly(0, 1, 2);
        assertThat(onA.path("turns")).extracting(t -> t.path("userMessage").asText())
                .containsExactly("A1: which skills do I have?", "B1: and what did I ask first?", "A2: thanks, bye");
        assertThat(onA.path("turns")).extracting(t -> t.path("status").asText()).containsOnly("complete");
        assertStoredWithoutInterleaving(id, List.of("complete", "complete", "complete"),
                List.of("A1: which skills do I have?", "B1: and what did I ask first?", "A2: thanks, bye"));
    }

    @Test
    void aConversationCreatedOnOneInstanceCanBeUsedOnTheOtherAsSoonAsItsIdIsKnown() throws Exception {
        for (int round = 0; round < 5; round++) {
            String id = ForgeClient.create(a);
            String message = "straight to B, round " + round;
            replies.on(message, SimReply.of("Here ", "on B."));

            JsonNode onB = ForgeClient.conversation(b, id);
            assertThat(onB.path("id").asText()).isEqualTo(id);
            assertComplete(ForgeClient.turn(b, id, message));
            assertStoredWithoutInterleaving(id, List.of("complete"), List.of(message));
        }
    }

    @Test
    void aTurnSentToTheOtherInstanceWhileOneRunsIsRefusedWith409AndNothingInterleaves() throws Exception {
        String id = ForgeClient.create(a);
        replies.on("first, on A", SimReply.of("First ", "answer."));
        replies.on("slow, on A", SimReply.of("Thinking ", "hard…", " (never sent)").withFault(new SimReply.Stall(2)));
        replies.on("after the stop, on B", SimReply.of("Picking ", "up."));
        assertComplete(ForgeClient.turn(a, id, "first, on A"));

        try (EventStream slow = ForgeClient.open(a, id, "slow, on A")) {
            assertThat(slow.status()).isEqualTo(200);
            slow.until("text");
            slow.until("text");

            long start = System.nanoTime();
            HttpResponse<String> onB = ForgeClient.post(b, "/api/conversations/" + id + "/messages", ForgeClient.message("meanwhile, on B"));
            assertRefusedAsBusy(onB, "B while A runs a turn");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("B waits at most its hand-over wait for A")
                    .isLessThan(HANDOVER_WAIT.plusSeconds(5));
            assertRefusedAsBusy(ForgeClient.post(a, "/api/conversations/" + id + "/messages", ForgeClient.message("meanwhile, on A")),
                    "A while A runs a turn");

            HttpResponse<String> stop = ForgeClient.post(a, "/api/conversations/" + id + "/stop", "");
            assertThat(Json.parse(stop.body()).path("stopped").asBoolean()).as(stop.body()).isTrue();
            List<Received> rest = slow.rest();
            assertThat(rest.getLast().type()).isEqualTo("done");
            assertThat(rest.getLast().text("stopReason")).isEqualTo("cancelled");
        }

        assertComplete(ForgeClient.turn(b, id, "after the stop, on B"));
        List<SimRequest> requests = requestsOf(id);
        assertThat(requests).hasSize(3);
        assertThat(requests.get(2).messages()).as("B goes on from the stopped turn, as stored by A")
                .isEqualTo(extended(requests.get(1), "Thinking hard…", "after the stop, on B"));
        assertThat(sim.requests()).extracting(SimRequest::body).noneMatch(body -> body.contains("meanwhile"));
        assertStoredWithoutInterleaving(id, List.of("complete", "cancelled", "complete"),
                List.of("first, on A", "slow, on A", "after the stop, on B"));
    }

    @Test
    void twoTurnsSentAtTheSameMomentRunOneAndRefuseTheOtherWith409OnOneInstanceAndOnTwo() throws Exception {
        String id = ForgeClient.create(b);
        for (String message : List.of("one, at once on B", "two, at once on B", "three, at once on A", "four, at once on B")) {
            replies.on(message, SimReply.of("Answering ", message, " (never sent)").withFault(new SimReply.Stall(2)));
        }

        String first = raceAndStopTheWinner(id, b, "one, at once on B", b, "two, at once on B");
        String second = raceAndStopTheWinner(id, a, "three, at once on A", b, "four, at once on B");

        assertStoredWithoutInterleaving(id, List.of("cancelled", "cancelled"), List.of(first, second));
    }

    /**
     * Sends two messages at the same moment; exactly one turn runs (its provider reply stalls, so it
     * is still running when the other is answered), the other is refused with 409. Stops the one
     * that runs, and returns its message.
     */
    private static String raceAndStopTheWinner(String id, ServerProcess one, String firstMessage, ServerProcess other,
                                               String secondMessage) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<ServerProcess> servers = List.of(one, other);
        List<String> messages = List.of(firstMessage, secondMessage);
        List<EventStream> answers = new ArrayList<>();
        try (ExecutorService senders = Executors.newFixedThreadPool(2)) {
            List<Future<EventStream>> sent = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                ServerProcess server = servers.get(i);
                String message = messages.get(i);
                sent.add(senders.submit(() -> {
                    go.await();
                    return ForgeClient.open(server, id, message);
                }));
            }
            go.countDown();
            for (Future<EventStream> answer : sent) {
                answers.add(answer.get(30, TimeUnit.SECONDS));
            }
        }
        try {
            assertThat(answers).extracting(EventStream::status).as("%s and %s at once", firstMessage, secondMessage)
                    .containsExactlyInAnyOrder(200, 409);
            int winner = answers.get(0).status() == 200 ? 0 : 1;
            EventStream running = answers.get(winner);
            JsonNode error = Json.parse(answers.get(1 - winner).refusal()).path("error");
            assertThat(error.path("code").asText()).isEqualTo("turn_in_progress");
            assertThat(error.path("message").asText()).isNotBlank();

            running.until("text");
            running.until("text");
            ForgeClient.post(servers.get(winner), "/api/conversations/" + id + "/stop", "");
            assertThat(running.rest().getLast().text("stopReason")).isEqualTo("cancelled");
            return messages.get(winner);
        } finally {
            for (EventStream answer : answers) {
                answer.close();
            }
        }
    }

    @Test
    void aServerKilledMidTurnShowsTheTurnInterruptedAfterItsRestartAndTheOtherInstanceGoesOnAtOnce() throws Exception {
        replies.on("C: first", SimReply.of("First ", "answer."));
        replies.on("C: cut by the kill", SimReply.of("Half ", "an answer", " (never sent)").withFault(new SimReply.Stall(2)));
        replies.on("B: after the crash", SimReply.of("Carrying ", "on."));
        Path dataDir = dataDirs.resolve("c");
        String id;
        List<Received> first;
        try (ServerProcess c = ServerProcess.start("two-instances-C1", dataDir, env)) {
            id = ForgeClient.create(c);
            first = ForgeClient.turn(c, id, "C: first");
            assertComplete(first);
            try (EventStream cut = ForgeClient.open(c, id, "C: cut by the kill")) {
                cut.until("text");
                cut.until("text");
                // The first turn and the cut one's start are stored (off the request path: waited for here, as the
                // flush window itself is ServerCrashTest's subject), then the kill.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                for (Stored stored = Stored.read(id); !stored.turnStatuses().equals(List.of("complete", "running"));
                     stored = Stored.read(id)) {
                    assertThat(System.nanoTime()).as("both turns stored: %s", stored.turnStatuses()).isLessThan(deadline);
                    Thread.sleep(20);
                }
                c.kill();
            }
        }
        try (ServerProcess restarted = ServerProcess.start("two-instances-C2", dataDir, env)) {
            JsonNode shown = ForgeClient.conversation(restarted, id);
            assertThat(shown.path("turns")).extracting(t -> t.path("status").asText()).containsExactly("complete", "interrupted");
            assertThat(shown.path("turns").get(0).path("iterations")).extracting(i -> i.path("rawContent").asText())
                    .containsExactly("First answer.");

            assertComplete(ForgeClient.turn(b, id, "B: after the crash"));
            List<SimRequest> requests = requestsOf(id);
            assertThat(requests).hasSize(3);
            ArrayNode expected = ((ArrayNode) requests.get(1).messages()).deepCopy();
            expected.addObject().put("role", "user").put("content", "B: after the crash");
            assertThat(requests.get(2).messages()).as("B goes on from what the killed server stored").isEqualTo(expected);
            assertStoredWithoutInterleaving(id, List.of("complete", "interrupted", "complete"),
                    List.of("C: first", "C: cut by the kill", "B: after the crash"));
            restarted.stop();
        }
    }

    // ------------------------------------------------------------------------------ helpers

    /**
     * What the database holds, once both writers have caught up: entries numbered 0..n-1; each turn's
     * entries together, starting with its one user message, in turn order; one turn record per turn.
     */
    private static void assertStoredWithoutInterleaving(String id, List<String> statuses, List<String> messages) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        Stored stored = Stored.read(id);
        while (!stored.settled(statuses.size()) && System.nanoTime() < deadline) {
            Thread.sleep(50);
            stored = Stored.read(id);
        }
        assertThat(stored.turnStatuses).as("turn records of %s", id).isEqualTo(statuses);
        List<Integer> expectedSeq = new ArrayList<>();
        for (int i = 0; i < stored.seqs.size(); i++) {
            expectedSeq.add(i);
        }
        assertThat(stored.seqs).as("entry seq numbers").isEqualTo(expectedSeq);
        assertThat(stored.turns).as("entry turns: each turn's entries together, in turn order").isSorted();
        List<String> userMessages = new ArrayList<>();
        List<Integer> turnsWithEntries = new ArrayList<>();
        for (int i = 0; i < stored.seqs.size(); i++) {
            boolean startsTurn = i == 0 || !stored.turns.get(i).equals(stored.turns.get(i - 1));
            assertThat(stored.kinds.get(i).equals("user")).as("entry %d is a user message exactly when it starts a turn", i).isEqualTo(startsTurn);
            if (startsTurn) {
                turnsWithEntries.add(stored.turns.get(i));
                userMessages.add(stored.contents.get(i));
            }
        }
        assertThat(turnsWithEntries).as("turn numbers of the entries").isEqualTo(stored.turnNumbers);
        assertThat(userMessages).as("the messages, in the order they ran").isEqualTo(messages);
    }

    /** The rows of one conversation. */
    private record Stored(List<Integer> seqs, List<Integer> turns, List<String> kinds, List<String> contents,
                          List<Integer> turnNumbers, List<String> turnStatuses) {

        static Stored read(String id) throws SQLException {
            Stored stored = new Stored(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>(),
                    new ArrayList<>(), new ArrayList<>());
            try (Connection connection = database.getConnection()) {
                // Both queries in one snapshot: read apart, a batch committed between them (a turn's first entries and its
                // end, applied together when the writer fell behind) showed the turn's record without its entries.
                connection.setAutoCommit(false);
                connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
                try (PreparedStatement select = connection.prepareStatement(
                        "SELECT seq, turn, kind, content FROM entries WHERE conversation_id = ? ORDER BY seq")) {
                    select.setString(1, id);
                    try (ResultSet rows = select.executeQuery()) {
                        while (rows.next()) {
                            stored.seqs.add(rows.getInt(1));
                            stored.turns.add(rows.getInt(2));
                            stored.kinds.add(rows.getString(3));
                            stored.contents.add(rows.getString(4));
                        }
                    }
                }
                try (PreparedStatement select = connection.prepareStatement(
                        "SELECT turn, status FROM turns WHERE conversation_id = ? ORDER BY turn")) {
                    select.setString(1, id);
                    try (ResultSet rows = select.executeQuery()) {
                        while (rows.next()) {
                            stored.turnNumbers.add(rows.getInt(1));
                            stored.turnStatuses.add(rows.getString(2));
                        }
                    }
                }
                connection.rollback(); // read only
            }
            return stored;
        }

        boolean settled(int turnCount) {
            return turnStatuses.size() >= turnCount && !turnStatuses.contains("running");
        }
    }

    private static void assertRefusedAsBusy(HttpResponse<String> answer, String what) throws Exception {
        assertThat(answer.statusCode()).as("%s: %s", what, answer.body()).isEqualTo(409);
        assertThat(answer.headers().firstValue("content-type").orElse("")).startsWith("application/json");
        JsonNode error = Json.parse(answer.body()).path("error");
        assertThat(error.path("code").asText()).as(what).isEqualTo("turn_in_progress");
        assertThat(error.path("message").asText()).as(what).isNotBlank();
    }

    private static void assertComplete(List<Received> events) {
        assertThat(events.getLast().type()).as("%s", events.stream().map(Received::type).toList()).isEqualTo("done");
        assertThat(events.getLast().text("stopReason")).isEqualTo("complete");
    }

    /** The provider requests of one conversation (its id is the prompt cache key), in order. */
    private static List<SimRequest> requestsOf(String id) {
        return sim.requests().stream().filter(r -> id.equals(r.cacheKey())).toList();
    }

    /** A request's messages, then the assistant's answer and the person's next message. */
    private static JsonNode extended(SimRequest request, String answer, String next) {
        ArrayNode messages = ((ArrayNode) request.messages()).deepCopy();
        messages.addObject().put("role", "assistant").put("content", answer);
        messages.addObject().put("role", "user").put("content", next);
        return messages;
    }

    /** The request body as sent, up to the end of its messages array (exclusive). */
    private static String messagesWithoutClosingBracket(SimRequest request) {
        int end = request.body().indexOf("],\"stream\":true");
        assertThat(end).as("messages are followed by the stream flag").isPositive();
        return request.body().substring(0, end);
    }
}
