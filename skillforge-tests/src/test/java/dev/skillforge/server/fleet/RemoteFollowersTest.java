package dev.skillforge.server.fleet;

import dev.skillforge.server.http.ConnectionLimits;
import dev.skillforge.server.config.SecuritySettings;
import dev.skillforge.server.process.SharedPostgres;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.server.provider.sim.SimResponder;
import dev.skillforge.server.store.JdbcConversationStore;
import dev.skillforge.testkit.ForgeClient;
import dev.skillforge.testkit.ForgeClient.EventStream;
import dev.skillforge.testkit.ForgeClient.Received;
import dev.skillforge.testkit.ServerHarness;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Clients following a turn that another instance runs. Two server instances in this JVM share one PostgreSQL
 * server that takes at most {@value #MAX_CONNECTIONS} sessions: A runs the turn, B serves the followers
 * ({@code GET …/events} with a {@code Last-Event-ID}) and connects as a role of its own, so that the sessions it
 * holds can be counted in {@code pg_stat_activity}. However many clients follow, B holds its pool and one
 * listening session, no more; every client gets every event after its last id, once and in order, also when
 * B's listening session is cut in the middle of the turn and cannot come back until the turn has ended.
 */
class RemoteFollowersTest {

    private static final int MAX_CONNECTIONS = 40;
    private static final int FOLLOWERS = 120;
    /** B's pool (8 sessions at most) and its one listening session. */
    private static final int SESSIONS_OF_AN_INSTANCE = 8 + 1;
    private static final String ROLE_OF_B = "forge_b";

    private static SharedPostgres postgres;
    private static final Map<String, SimReply> repliesOnA = new ConcurrentHashMap<>();
    private static ServerHarness a;
    private static ServerHarness b;

    @TempDir
    static Path dirs;

    @BeforeAll
    static void startTwoInstancesOnOneSmallDatabase() throws Exception {
        postgres = SharedPostgres.start("skillforge_followers", Map.of("max_connections", Integer.toString(MAX_CONNECTIONS)));
        admin("CREATE ROLE " + ROLE_OF_B + " LOGIN SUPERUSER");
        SimResponder byMessage = messages -> repliesOnA.getOrDefault(messages.getLast().content(), SimReply.of("(unscripted)"));
        a = ServerHarness.builder(dirs.resolve("a"), byMessage)
                .store(JdbcConversationStore.open(postgres.jdbcUrl(), "postgres", null, dirs.resolve("a"))).start();
        // Every follower connects from 127.0.0.1: B lets one client hold them all.
        b = ServerHarness.builder(dirs.resolve("b"), byMessage)
                .store(JdbcConversationStore.open(postgres.jdbcUrl(), ROLE_OF_B, null, dirs.resolve("b")))
                .security(SecuritySettings.defaults().withConnections(ConnectionLimits.DEFAULT.withMaxPerClient(FOLLOWERS + 20))).start();
    }

    @AfterAll
    static void stopAll() throws Exception {
        for (AutoCloseable resource : new AutoCloseable[] {b, a, postgres}) {
            if (resource != null) {
                resource.close();
            }
        }
    }

    @Test
    void aHundredAndTwentyClientsFollowATurnOnAnotherInstanceThroughItsOneListeningSessionAndEachGetsEveryEvent() throws Exception {
        String id = ForgeClient.create(a);
        CountDownLatch release = new CountDownLatch(1);
        repliesOnA.put("followed by many", SimReply.of("One ", "two ", "three ", "four ", "five.").withFault(new SimReply.Hold(2, release)));
        try (EventStream own = ForgeClient.open(a, id, "followed by many")) {
            long first = own.until("text").event().id();
            long second = own.until("text").event().id();
            assertThat(a.writer.flush(Duration.ofSeconds(10))).as("B learns of the running turn from its stored row").isTrue();

            // Followers come back from different points: from the start, after the first event they saw, after the second.
            long[] lastSeen = new long[FOLLOWERS];
            for (int i = 0; i < FOLLOWERS; i++) {
                lastSeen[i] = List.of(0L, first, second).get(i % 3);
            }
            List<EventStream> followers = attachAll(b, id, lastSeen);
            try {
                assertThat(followers).extracting(EventStream::status).as("every follower is answered with the turn's events")
                        .containsOnly(200);
                int sessions = sessionsOf(ROLE_OF_B);
                System.out.printf("%d clients following a turn of another instance: that instance holds %d database sessions%n",
                        FOLLOWERS, sessions);
                assertThat(sessions).as("B's sessions with %d followers: its pool and one listening session", FOLLOWERS)
                        .isLessThanOrEqualTo(SESSIONS_OF_AN_INSTANCE);

                release.countDown();
                List<Received> all = own.rest();
                assertThat(all.getLast().type()).isEqualTo("done");
                for (int i = 0; i < FOLLOWERS; i++) {
                    assertSameEvents(followers.get(i).rest(), all, lastSeen[i], "follower " + i);
                }
            } finally {
                closeAll(followers);
            }
        }
    }

    @Test
    void followersLoseNothingWhenTheListeningSessionIsCutMidTurnAndComesBackOnlyAfterTheTurnEnded() throws Exception {
        String id = ForgeClient.create(a);
        CountDownLatch release = new CountDownLatch(1);
        repliesOnA.put("followed through a cut", SimReply.of("Before ", "the cut, ", "during ", "it, ", "and after.")
                .withFault(new SimReply.Hold(2, release)));
        try (EventStream own = ForgeClient.open(a, id, "followed through a cut")) {
            own.until("text");
            long seen = own.until("text").event().id();
            assertThat(a.writer.flush(Duration.ofSeconds(10))).isTrue();
            long[] lastSeen = new long[10];
            java.util.Arrays.fill(lastSeen, seen);
            List<EventStream> followers = attachAll(b, id, lastSeen);
            try {
                assertThat(followers).extracting(EventStream::status).containsOnly(200);
                List<Integer> listening = listeningSessionsOf(ROLE_OF_B);
                assertThat(listening).as("B listens on one session").hasSize(1);

                // B cannot log in again until the turn has ended: what A relays meanwhile reaches nobody.
                admin("ALTER ROLE " + ROLE_OF_B + " NOLOGIN");
                try {
                    admin("SELECT pg_terminate_backend(" + listening.getFirst() + ")");
                    release.countDown();
                    assertThat(own.rest().getLast().type()).isEqualTo("done");
                } finally {
                    admin("ALTER ROLE " + ROLE_OF_B + " LOGIN");
                }

                List<Received> all = own.seen();
                for (int i = 0; i < followers.size(); i++) {
                    assertSameEvents(followers.get(i).rest(), all, seen, "follower " + i);
                }
                assertThat(listeningSessionsOf(ROLE_OF_B)).as("B listens again, on a new session").hasSize(1)
                        .doesNotContain(listening.getFirst());
            } finally {
                closeAll(followers);
            }
        }
    }

    /** Re-attaches one client per entry of {@code lastSeen}, all at once, each with that Last-Event-ID. */
    private static List<EventStream> attachAll(ServerHarness server, String id, long[] lastSeen) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<EventStream>> attaching = new ArrayList<>();
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            for (long after : lastSeen) {
                attaching.add(clients.submit(() -> {
                    go.await();
                    return ForgeClient.attach(server, id, after);
                }));
            }
            go.countDown();
            List<EventStream> streams = new ArrayList<>();
            for (Future<EventStream> stream : attaching) {
                streams.add(stream.get(60, TimeUnit.SECONDS));
            }
            return streams;
        }
    }

    /** The follower got exactly the events of the turn after {@code after}: the same ids, in order, with the same data. */
    private static void assertSameEvents(List<Received> got, List<Received> all, long after, String who) {
        List<String> expected = all.stream().filter(r -> r.event().id() > after).map(RemoteFollowersTest::describe).toList();
        assertThat(got.stream().map(RemoteFollowersTest::describe).toList()).as("%s (after %d)", who, after).isEqualTo(expected);
    }

    private static String describe(Received received) {
        return received.event().id() + " " + received.event().data();
    }

    private static void closeAll(List<EventStream> streams) throws Exception {
        for (EventStream stream : streams) {
            stream.close();
        }
    }

    /** The sessions a role holds on the database server now. */
    private static int sessionsOf(String role) throws Exception {
        try (Connection connection = postgres.database().getConnection(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE usename = '" + role + "'")) {
            rows.next();
            return rows.getInt(1);
        }
    }

    /** The process ids of the sessions of a role that listen for notifications (their application name says so). */
    private static List<Integer> listeningSessionsOf(String role) throws Exception {
        List<Integer> pids = new ArrayList<>();
        try (Connection connection = postgres.database().getConnection(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT pid FROM pg_stat_activity WHERE usename = '" + role
                     + "' AND application_name LIKE '% (listening)'")) {
            while (rows.next()) {
                pids.add(rows.getInt(1));
            }
        }
        return pids;
    }

    private static void admin(String sql) throws Exception {
        try (Connection connection = postgres.database().getConnection(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
