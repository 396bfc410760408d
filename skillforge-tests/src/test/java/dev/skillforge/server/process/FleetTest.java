package dev.skillforge.server.process;

import dev.skillforge.server.json.Json;
import dev.skillforge.server.provider.sim.SimProviderServer;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.testkit.ForgeClient;
import dev.skillforge.testkit.ForgeClient.EventStream;
import dev.skillforge.testkit.ForgeClient.Received;
import dev.skillforge.testkit.Nginx;
import dev.skillforge.testkit.ServerProcess;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three server processes on one PostgreSQL database behind Debian's nginx (round-robin, event streams
 * unbuffered), as docs/commands-and-storage.md describes the deployment. Through the balancer, so
 * requests land on different instances: conversations are created, continued, stopped and re-attached
 * wherever a request lands; an instance paused (SIGSTOP) past its lease is taken over and, resumed,
 * fenced (its turn ends with an error, nothing it wrote after the take-over is stored); an instance
 * killed with {@code kill -9} leaves its conversation usable elsewhere within the lease time; a rolling
 * restart of all three during continuous traffic fails no turn. Leases are {@value #LEASE_SECONDS} s
 * here so that the test stays quick.
 */
class FleetTest {

    static final int LEASE_SECONDS = 2;
    /** How long the writes of a turn may take to reach the database (they are made off the request path). */
    private static final Duration STORED_WITHIN = Duration.ofSeconds(10);

    private static SharedPostgres postgres;
    private static DataSource database;
    private static SimProviderServer sim;
    /** Unscripted messages get a short answer that takes a moment. */
    private static final MessageReplies replies = new MessageReplies(
            last -> SimReply.of("Answering ", "'" + last + "'", ", slowly.").withDelay(Duration.ofMillis(150)));
    private static final List<Integer> ports = new ArrayList<>();
    private static final ServerProcess[] servers = new ServerProcess[3];
    private static final AtomicInteger starts = new AtomicInteger();
    private static Map<String, String> env;
    private static Nginx nginx;

    @TempDir
    static Path dirs;

    @BeforeAll
    static void startDatabaseProviderThreeServersAndTheBalancer() throws Exception {
        postgres = SharedPostgres.start("skillforge_fleet");
        database = postgres.database();
        sim = SimProviderServer.startOnLoopback(replies, SimProviderServer.Options.DEFAULT);
        env = postgres.settings(ServerCrashTest.providerEnv(sim));
        env.put("FORGE_LEASE_SECONDS", Integer.toString(LEASE_SECONDS));
        env.put("FORGE_HANDOVER_WAIT_MILLIS", "3000");
        env.put("FORGE_SHUTDOWN_GRACE_SECONDS", "20");
        for (int i = 0; i < servers.length; i++) {
            ports.add(ServerProcess.freePort());
        }
        for (int i = 0; i < servers.length; i++) {
            servers[i] = start(i);
        }
        nginx = Nginx.start(dirs.resolve("nginx"), ports, Duration.ofSeconds(30));
    }

    private static ServerProcess start(int instance) throws Exception {
        return ServerProcess.startOnPort("fleet-" + instance + "-start" + starts.incrementAndGet(), dirs.resolve("instance-" + instance),
                env, ports.get(instance));
    }

    @AfterAll
    static void stopAll() throws Exception {
        List<AutoCloseable> resources = new ArrayList<>();
        resources.add(nginx);
        resources.addAll(List.of(servers));
        resources.add(sim);
        resources.add(postgres);
        for (AutoCloseable resource : resources) {
            if (resource != null) {
                resource.close();
            }
        }
    }

    @Test
    void conversationsAreCreatedContinuedStoppedAndReattachedThroughTheBalancerWhereverARequestLands() throws Exception {
        String id = ForgeClient.create(nginx);
        Set<String> servedBy = new HashSet<>();
        for (int turn = 0; turn < 3; turn++) {
            replies.on("turn " + turn, SimReply.of("Answer ", "to turn " + turn + "."));
            try (EventStream stream = ForgeClient.open(nginx, id, "turn " + turn)) {
                assertThat(stream.status()).as(stream.refusal()).isEqualTo(200);
                servedBy.add(stream.header(Nginx.UPSTREAM_HEADER));
                assertDone(stream.rest(), "complete");
            }
        }
        assertThat(servedBy).as("the turns ran on different instances, each going on from the last").hasSize(3);

        // Stop: the stop lands on another instance than the one running the turn (round-robin), which stops it.
        replies.on("slow, to be stopped", SimReply.of("Slow ", "going", " (never sent)").withFault(new SimReply.Hold(2, new CountDownLatch(1))));
        try (EventStream slow = ForgeClient.open(nginx, id, "slow, to be stopped")) {
            String runner = slow.header(Nginx.UPSTREAM_HEADER);
            slow.until("text");
            slow.until("text");
            awaitRunningTurnStored(id, 4); // another instance learns of the turn from its stored row
            HttpResponse<String> stop = ForgeClient.post(nginx, "/api/conversations/" + id + "/stop", "");
            assertThat(stop.statusCode()).as(stop.body()).isEqualTo(200);
            assertThat(stop.headers().firstValue(Nginx.UPSTREAM_HEADER).orElse("")).as("the stop landed elsewhere").isNotEqualTo(runner);
            assertThat(Json.parse(stop.body()).path("stopped").asBoolean()).as(stop.body()).isTrue();
            assertDone(slow.rest(), "cancelled");
        }

        // Re-attach: the client leaves mid-turn and comes back with its Last-Event-ID on other instances.
        CountDownLatch release = new CountDownLatch(1);
        replies.on("follow me anywhere", SimReply.of("One ", "two ", "three ", "four.").withFault(new SimReply.Hold(2, release)));
        String runner;
        long lastSeen;
        try (EventStream first = ForgeClient.open(nginx, id, "follow me anywhere")) {
            runner = first.header(Nginx.UPSTREAM_HEADER);
            first.until("text");
            lastSeen = first.until("text").event().id();
        }
        awaitRunningTurnStored(id, 5);
        List<Received> resumed;
        try (EventStream again = ForgeClient.attach(nginx, id, lastSeen)) {
            assertThat(again.status()).as(again.refusal()).isEqualTo(200);
            assertThat(again.header(Nginx.UPSTREAM_HEADER)).as("re-attached on another instance").isNotEqualTo(runner);
            release.countDown();
            resumed = again.rest();
        }
        assertThat(resumed).extracting(r -> r.event().id()).as("ids after the last one seen, each once, in order")
                .allMatch(eventId -> eventId > lastSeen).isSorted().doesNotHaveDuplicates();
        assertThat(ForgeClient.ofType(resumed, "text")).extracting(r -> r.text("content")).containsExactly("three ", "four.");
        assertDone(resumed, "complete");
        long lastId = resumed.getLast().event().id();
        for (int attempt = 0; attempt < 3; attempt++) {
            try (EventStream after = ForgeClient.attach(nginx, id, lastId)) {
                assertThat(after.status()).as("everything was seen: nothing to follow on %s", after.header(Nginx.UPSTREAM_HEADER))
                        .isEqualTo(204);
            }
        }
        assertThat(turnStatuses(id, 5)).containsExactly("complete", "complete", "complete", "cancelled", "complete");
    }

    @Test
    void anInstancePausedPastItsLeaseIsTakenOverAndOnceResumedIsFencedWithNothingAppendedAfterTheTakeOver() throws Exception {
        String id = ForgeClient.create(nginx);
        CountDownLatch release = new CountDownLatch(1);
        replies.on("partitioned turn", SimReply.of("Before ", "the pause", ", and after it.").withFault(new SimReply.Hold(2, release)));
        replies.on("taken over", SimReply.of("Taken ", "over."));
        replies.on("back on the resumed instance", SimReply.of("Back."));
        List<Received> cutOff;
        ServerProcess paused;
        try (EventStream partitioned = ForgeClient.open(nginx, id, "partitioned turn")) {
            paused = serverAt(partitioned.header(Nginx.UPSTREAM_HEADER));
            ServerProcess other = anyOtherThan(paused);
            partitioned.until("text");
            partitioned.until("text");
            awaitStoredEntries(id, 1); // the message is stored; the answer so far is not (an entry is stored whole)
            paused.pause();
            try {
                Thread.sleep(TimeUnit.SECONDS.toMillis(LEASE_SECONDS) + 500);
                List<Received> takeOver = ForgeClient.turn(other, id, "taken over");
                assertDone(takeOver, "complete");
            } finally {
                paused.resume();
            }
            release.countDown();
            cutOff = partitioned.rest();
        }
        Received last = cutOff.getLast();
        assertThat(last.type()).as("the paused instance's client is told: %s", cutOff.stream().map(Received::type).toList())
                .isEqualTo("error");
        assertThat(last.text("code")).isEqualTo("conversation_taken_over");

        Thread.sleep(1_000); // whatever the resumed instance still had queued has reached the database (or been refused)
        Stored stored = Stored.read(id);
        assertThat(stored.contents).as("no entry of the fenced turn after the take-over, nothing interleaved")
                .containsExactly("partitioned turn", "taken over", "Taken over.");
        assertThat(stored.epochs.get(0)).isLessThan(stored.epochs.get(1));
        assertThat(stored.epochs.subList(1, 3)).as("the take-over's entries, under its own epoch").containsOnly(stored.epochs.get(1));
        assertThat(turnStatuses(id, 2)).as("the cut turn stays interrupted: the fenced instance's end of it was refused")
                .containsExactly("interrupted", "complete");

        assertDone(ForgeClient.turn(paused, id, "back on the resumed instance"), "complete");
        awaitStoredEntries(id, 5); // the answer is written off the request path: the client can see it first
        assertThat(Stored.read(id).contents).endsWith("back on the resumed instance", "Back.");
        assertThat(paused.output()).contains("lease (epoch");
    }

    @Test
    void anInstanceKilledMidTurnLeavesItsConversationUsableElsewhereWithinTheLeaseTime() throws Exception {
        String id = ForgeClient.create(nginx);
        replies.on("cut by kill -9", SimReply.of("Half ", "an answer", " (never sent)").withFault(new SimReply.Hold(2, new CountDownLatch(1))));
        replies.on("after the kill", SimReply.of("Still ", "here."));
        int killed;
        long killedAt;
        try (EventStream cut = ForgeClient.open(nginx, id, "cut by kill -9")) {
            ServerProcess victim = serverAt(cut.header(Nginx.UPSTREAM_HEADER));
            killed = List.of(servers).indexOf(victim);
            cut.until("text");
            cut.until("text");
            awaitStoredEntries(id, 1);
            killedAt = System.nanoTime();
            victim.kill();
        }
        try { // the killed instance comes back whatever happens here, or the next tests find one instance fewer
            List<String> refusals = new ArrayList<>();
            List<Received> after = null;
            while (after == null) {
                try (EventStream next = ForgeClient.open(nginx, id, "after the kill")) {
                    if (next.status() == 200) {
                        after = next.rest();
                    } else {
                        refusals.add(next.status() + " " + Json.parse(next.refusal()).path("error").path("code").asText());
                        assertThat(Duration.ofNanos(System.nanoTime() - killedAt)).as("refused: %s", refusals).isLessThan(Duration.ofSeconds(30));
                    }
                }
            }
            Duration failOver = Duration.ofNanos(System.nanoTime() - killedAt);
            System.out.printf("fail-over after kill -9: the conversation ran a turn elsewhere %d ms after the kill (refused before: %s)%n",
                    failOver.toMillis(), refusals);
            assertDone(after, "complete");
            assertThat(refusals).as("only 'busy' while the dead instance's lease ran out").allMatch(r -> r.equals("409 turn_in_progress"));
            assertThat(failOver).as("within the lease time and one hand-over wait").isLessThan(Duration.ofSeconds(LEASE_SECONDS + 4));
            assertThat(turnStatuses(id, 2)).containsExactly("interrupted", "complete");
        } finally {
            servers[killed] = start(killed);
        }
    }

    @Test
    void aRollingRestartOfAllThreeInstancesDuringContinuousTrafficFailsNoTurn() throws Exception {
        AtomicBoolean going = new AtomicBoolean(true);
        List<String> failures = new CopyOnWriteArrayList<>();
        AtomicInteger completed = new AtomicInteger();
        // Turns completed by each instance ("127.0.0.1:PORT", the last address the balancer tried).
        Map<String, AtomicInteger> completedBy = new ConcurrentHashMap<>();
        List<Thread> clients = new ArrayList<>();
        for (int client = 0; client < 3; client++) {
            String id = ForgeClient.create(nginx);
            int number = client;
            clients.add(Thread.ofPlatform().name("client-" + client).start(() -> {
                for (int turn = 0; going.get(); turn++) {
                    String message = "client " + number + ", turn " + turn;
                    try (EventStream stream = ForgeClient.open(nginx, id, message)) {
                        if (stream.status() != 200) {
                            failures.add(message + ": " + stream.status() + " " + stream.refusal());
                            pause(Duration.ofMillis(100)); // as after an answer: a failing client must not hammer the balancer
                            continue;
                        }
                        List<Received> events = stream.rest();
                        Received last = events.isEmpty() ? null : events.getLast();
                        if (last == null || !last.type().equals("done") || !"complete".equals(last.text("stopReason"))) {
                            failures.add(message + " on " + stream.header(Nginx.UPSTREAM_HEADER) + ": ended with "
                                    + (last == null ? "nothing" : Json.write(last.event().data())));
                        } else {
                            String[] tried = stream.header(Nginx.UPSTREAM_HEADER).split(",\\s*");
                            completedBy.computeIfAbsent(tried[tried.length - 1], a -> new AtomicInteger()).incrementAndGet();
                            completed.incrementAndGet();
                        }
                    } catch (Exception e) {
                        failures.add(message + ": " + e);
                    }
                    pause(Duration.ofMillis(100)); // a person reads the answer; two cores run all of this
                }
            }));
        }
        Thread.sleep(1_000);
        int stoppedMidTurn = 0;
        for (int i = 0; i < servers.length; i++) {
            int before = completed.get();
            if (i == servers.length - 1 && stoppedMidTurn == 0) {
                awaitActiveRun(servers[i]); // at least one stop must fall on a running turn: the drain is what is tested
            }
            Duration stopped = servers[i].stop();
            System.out.printf("rolling restart: instance %d drained and stopped in %d ms%n", i, stopped.toMillis());
            if (servers[i].output().contains("running turns to finish")) {
                stoppedMidTurn++;
            }
            String restarted = "127.0.0.1:" + servers[i].port();
            int answeredBefore = completedBy.computeIfAbsent(restarted, a -> new AtomicInteger()).get();
            servers[i] = start(i);
            // Traffic goes on between the restarts, and the next instance stops only once the restarted one answers
            // turns again, as an operator's rolling restart waits for it: the balancer keeps an instance it could not
            // reach out of rotation for its fail_timeout (2 s), and an instance back within a second would otherwise
            // let the restarts run into each other until no instance is in rotation.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (completed.get() < before + 3 || completedBy.get(restarted).get() == answeredBefore) {
                assertThat(System.nanoTime()).as("instance %d (%s) answers turns again after its restart", i, restarted)
                        .isLessThan(deadline);
                Thread.sleep(50);
            }
        }
        going.set(false);
        for (Thread client : clients) {
            client.join(TimeUnit.SECONDS.toMillis(60));
        }
        System.out.printf("rolling restart: %d turns completed, %d failed%n", completed.get(), failures.size());
        assertThat(failures).as("failed turns; the balancer's log:%s", failures.isEmpty() ? "" : nginx.logs()).isEmpty();
        assertThat(completed.get()).isGreaterThan(10);
        assertThat(stoppedMidTurn).as("instances stopped while they ran a turn, and let it finish").isPositive();
    }

    // ------------------------------------------------------------------------------ helpers

    private static void pause(Duration duration) {
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits until {@code server} runs a turn (its {@code skillforge_active_runs} gauge). */
    private static void awaitActiveRun(ServerProcess server) throws Exception {
        Pattern active = Pattern.compile("(?m)^skillforge_active_runs(?:\\{[^}]*})? ([0-9.eE+]+)$");
        await(server + " runs a turn", Duration.ofSeconds(20), () -> {
            Matcher gauge = active.matcher(ForgeClient.get(server, "/metrics").body());
            return gauge.find() ? Double.parseDouble(gauge.group(1)) : 0;
        }, runs -> runs >= 1);
    }

    /** Reads {@code value} every 20 ms until {@code done} holds for what it read (which it returns); fails after {@code within}. */
    private static <T> T await(String what, Duration within, Callable<T> value, Predicate<T> done) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        T read = value.call();
        while (!done.test(read)) {
            assertThat(System.nanoTime()).as("%s: %s", what, read).isLessThan(deadline);
            Thread.sleep(20);
            read = value.call();
        }
        return read;
    }

    private static ServerProcess serverAt(String upstream) {
        for (ServerProcess server : servers) {
            if (upstream.equals("127.0.0.1:" + server.port())) {
                return server;
            }
        }
        throw new AssertionError("no instance at '" + upstream + "'");
    }

    private static ServerProcess anyOtherThan(ServerProcess server) {
        return List.of(servers).stream().filter(s -> s != server).findFirst().orElseThrow();
    }

    private static void assertDone(List<Received> events, String stopReason) {
        assertThat(events).as("events").isNotEmpty();
        assertThat(events.getLast().type()).as("%s", events.stream().map(Received::type).toList()).isEqualTo("done");
        assertThat(events.getLast().text("stopReason")).isEqualTo(stopReason);
    }

    private static void awaitStoredEntries(String id, int count) throws Exception {
        await(count + " entries of " + id + " stored", STORED_WITHIN, () -> Stored.read(id).contents, contents -> contents.size() >= count);
    }

    /**
     * The turn statuses the database holds, once it holds {@code turns} turns and none is recorded running: turns
     * are written off the request path, so a client can see a turn's end before its row is stored.
     */
    private static List<String> turnStatuses(String id, int turns) throws Exception {
        return await(turns + " turns of " + id + " stored, none running", STORED_WITHIN, () -> storedTurnStatuses(id),
                statuses -> statuses.size() >= turns && !statuses.contains("running"));
    }

    private static List<String> storedTurnStatuses(String id) throws Exception {
        List<String> statuses = new ArrayList<>();
        try (Connection connection = database.getConnection();
             PreparedStatement select = connection.prepareStatement("SELECT status FROM turns WHERE conversation_id = ? ORDER BY turn")) {
            select.setString(1, id);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    statuses.add(rows.getString(1));
                }
            }
        }
        return statuses;
    }

    /**
     * Waits until the database holds {@code turns} turns of {@code id}, the last one running: an instance that does
     * not run a turn learns of it from that row, which is written off the request path.
     */
    private static void awaitRunningTurnStored(String id, int turns) throws Exception {
        await("turn " + turns + " of " + id + " stored as running", STORED_WITHIN, () -> storedTurnStatuses(id),
                statuses -> statuses.size() >= turns && "running".equals(statuses.getLast()));
    }

    /** The entries of one conversation as stored, with the lease epoch each was written under. */
    private record Stored(List<String> contents, List<Long> epochs) {
        static Stored read(String id) throws Exception {
            Stored stored = new Stored(new ArrayList<>(), new ArrayList<>());
            try (Connection connection = database.getConnection();
                 PreparedStatement select = connection.prepareStatement(
                         "SELECT content, lease_epoch FROM entries WHERE conversation_id = ? ORDER BY seq")) {
                select.setString(1, id);
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        stored.contents.add(rows.getString(1));
                        stored.epochs.add(rows.getLong(2));
                    }
                }
            }
            return stored;
        }
    }
}
