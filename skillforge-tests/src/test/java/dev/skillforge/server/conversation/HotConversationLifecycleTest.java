package dev.skillforge.server.conversation;

import dev.skillforge.core.agent.AgentEvent;
import dev.skillforge.server.people.Caller;
import dev.skillforge.core.agent.AgentLoop;
import dev.skillforge.core.agent.ModelProvider;
import dev.skillforge.core.agent.ModelReply;
import dev.skillforge.core.agent.ProviderException;
import dev.skillforge.core.agent.StopReason;
import dev.skillforge.core.agent.TurnLimits;
import dev.skillforge.core.agent.Usage;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.skillforge.testkit.FullDiskStore;
import dev.skillforge.testkit.NoWorkspaces;
import dev.skillforge.testkit.ManualClock;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.run.AgentRun;
import dev.skillforge.server.store.ConversationRecord;
import dev.skillforge.server.store.JdbcConversationStore;
import dev.skillforge.server.store.StoreWriter;
import dev.skillforge.server.store.StoredEntry;
import dev.skillforge.server.store.TurnRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The life of a hot conversation on an injected clock: idle eviction after ten minutes, the cap of
 * 1,000 conversations in memory, and lease expiry between two instances, none of it waiting for real
 * time; and how an instance's turns reach a turn another instance runs. The hosts here run no background maintenance:
 * each test calls {@code maintain()} itself.
 */
class HotConversationLifecycleTest {

    /** No waiting for another instance's hand-over: a conversation held elsewhere is "busy" at once. */
    private static final ConversationTimings TIMINGS = new ConversationTimings(Duration.ofSeconds(15), Duration.ofMillis(200),
            Duration.ZERO, Duration.ofMinutes(10), 1000, Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofSeconds(10),
            Duration.ofSeconds(10));

    @TempDir
    Path data;
    private final ManualClock clock = new ManualClock(1_800_000_000_000L);
    private JdbcConversationStore store;
    private StoreWriter writer;
    private final List<AutoCloseable> opened = new ArrayList<>();
    /** Released by a test to let a turn of {@link #blocking} answer. */
    private final CountDownLatch answer = new CountDownLatch(1);

    @BeforeEach
    void open() {
        store = JdbcConversationStore.open(null, null, null, data);
        writer = new StoreWriter(store);
    }

    @AfterEach
    void close() throws Exception {
        answer.countDown();
        for (AutoCloseable closeable : opened.reversed()) {
            closeable.close();
        }
        writer.close();
        store.close();
    }

    /** One instance's conversations, as its doors use them. */
    private record Instance(ConversationHost host, Conversations conversations, Turns turns) {
        Instance(ConversationHost host) {
            this(host, new Conversations(host), new Turns(host, Optional.empty()));
        }

        /** The same conversations, with turns that reach {@code others} for those held elsewhere. */
        Instance reaching(OtherInstances others) {
            return new Instance(host, conversations, new Turns(host, Optional.of(others)));
        }
    }

    /** Other instances that are only {@code holder}: a stop asked of them stops its turn; nothing is followed. */
    private record OnlyInstance(Instance holder, List<String> asked) implements OtherInstances {
        @Override
        public void requestStop(String conversationId) {
            asked.add("stop " + conversationId);
            holder.host().stopHere(conversationId);
        }

        @Override
        public Optional<RunElsewhere> follow(String conversationId, long afterId, Duration answerWait) {
            asked.add("follow " + conversationId + " after " + afterId);
            return Optional.empty();
        }
    }

    private Instance instance(String owner, ModelProvider provider) {
        return instance(owner, provider, TIMINGS, System::nanoTime);
    }

    /** An instance with its own timings, its waits timed by {@code ticker}. */
    private Instance instance(String owner, ModelProvider provider, ConversationTimings timings, LongSupplier ticker) {
        AgentLoop loop = new AgentLoop(provider, TurnLimits.DEFAULT);
        ConversationHost host = new ConversationHost(store, writer, "sys", ConversationModels.single("p", "m", loop, call -> Json.object()),
                new NoWorkspaces(), Budgets.NONE, PersonalDefaults.NONE, owner, timings, clock, ticker);
        opened.add(host);
        return new Instance(host);
    }

    private Instance instance(String owner) {
        return instance(owner, ANSWERS_OK);
    }

    /** A model that answers "ok". */
    private static final ModelProvider ANSWERS_OK = (call, listener, cancellation) -> {
        listener.onText("ok");
        return new ModelReply(null, Usage.UNKNOWN);
    };

    /** A provider that answers only once the test releases {@link #answer}. */
    private ModelProvider blocking() {
        return (call, listener, cancellation) -> {
            try {
                answer.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                throw new ProviderException("interrupted", "interrupted");
            }
            listener.onText("done");
            return new ModelReply(null, Usage.UNKNOWN);
        };
    }

    private static void turn(Instance service, String id) throws InterruptedException {
        AgentRun run = service.turns().startTurn(Caller.LOCAL, id, "hello");
        assertThat(run.events().awaitFinished(Duration.ofSeconds(10))).isTrue();
        assertThat(run.awaitEnd(Duration.ofSeconds(10))).isTrue();
    }

    @Test
    void anIdleConversationLeavesMemoryAfterTenMinutesAndGivesItsLeaseBack() throws Exception {
        Instance a = instance("instance-a");
        String id = a.conversations().create(Caller.LOCAL, "t").id();
        turn(a, id);

        clock.advance(Duration.ofMinutes(10));
        a.host().maintain();
        assertThat(a.host().hotCount()).as("exactly ten minutes idle: still held").isEqualTo(1);
        assertThat(store.leasesHeldBy("instance-a")).contains(id);

        clock.advance(Duration.ofMillis(1));
        a.host().maintain();
        assertThat(a.host().hotCount()).isZero();
        assertThat(store.leasesHeldBy("instance-a")).doesNotContain(id);

        // Its lease is free: another instance takes the conversation at once, with its whole history.
        Instance b = instance("instance-b");
        turn(b, id);
        assertThat(b.conversations().snapshot(Caller.LOCAL, id).entries()).extracting(e -> e.content()).containsExactly("hello", "ok", "hello", "ok");
    }

    @Test
    void aConversationWithARunningTurnIsNeverEvicted() throws Exception {
        Instance a = instance("instance-a", blocking());
        String id = a.conversations().create(Caller.LOCAL, "t").id();
        AgentRun run = a.turns().startTurn(Caller.LOCAL, id, "hello");

        clock.advance(Duration.ofHours(1));
        a.host().maintain();
        assertThat(a.host().hotCount()).isEqualTo(1);
        assertThat(a.turns().isRunning(id)).isTrue();

        answer.countDown();
        assertThat(run.awaitEnd(Duration.ofSeconds(10))).isTrue();
        clock.advance(Duration.ofMinutes(10).plusMillis(1));
        a.host().maintain();
        assertThat(a.host().hotCount()).isZero();
    }

    @Test
    void pastOneThousandConversationsTheLeastRecentlyUsedLeave() throws Exception {
        Instance a = instance("instance-a");
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 1002; i++) {
            ids.add(a.conversations().create(Caller.LOCAL, "c" + i).id());
            clock.advance(Duration.ofMillis(1));
        }
        turn(a, ids.getFirst()); // the oldest is used again: now the most recent
        a.host().maintain();

        assertThat(a.host().hotCount()).isEqualTo(1000);
        assertThat(store.leasesHeldBy("instance-a")).hasSize(1000).contains(ids.getFirst(), ids.getLast())
                .doesNotContain(ids.get(1), ids.get(2));
        // What left memory is still there, loaded again on use.
        turn(a, ids.get(1));
        assertThat(a.conversations().snapshot(Caller.LOCAL, ids.get(1)).entries()).hasSize(2);
    }

    @Test
    void aLeaseExpiresWhenItsHolderStopsRenewingAndTheStaleCopyIsDropped() throws Exception {
        Instance a = instance("instance-a");
        Instance b = instance("instance-b");
        String id = a.conversations().create(Caller.LOCAL, "t").id();
        turn(a, id);

        assertThatThrownBy(() -> b.turns().startTurn(Caller.LOCAL, id, "mine now?")).isInstanceOf(ConversationException.class)
                .extracting(e -> ((ConversationException) e).kind()).isEqualTo(ConversationException.Kind.BUSY);

        // A stops renewing (paused, partitioned): once its lease has run out, B takes the conversation.
        clock.advance(TIMINGS.leaseTtl().plusMillis(1));
        turn(b, id);
        assertThat(store.leasesHeldBy("instance-b")).contains(id);

        // A comes back: its renewal finds the lease gone, so its copy is dropped and never runs another turn.
        a.host().maintain();
        assertThat(a.host().hotCount()).isZero();
        assertThatThrownBy(() -> a.turns().startTurn(Caller.LOCAL, id, "stale")).isInstanceOf(ConversationException.class)
                .extracting(e -> ((ConversationException) e).kind()).isEqualTo(ConversationException.Kind.BUSY);
        assertThat(b.conversations().snapshot(Caller.LOCAL, id).entries()).extracting(e -> e.content()).containsExactly("hello", "ok", "hello", "ok");
    }

    @Test
    void aRequestWaitsForAHandOverAsLongAsTheHostsTickerSaysThenAnswersBusy() throws Exception {
        Instance a = instance("instance-a");
        String id = a.conversations().create(Caller.LOCAL, "t").id();
        // An hour's wait on a ticker that moves twenty minutes each time it is read: a few tries, no hour.
        ConversationTimings hourLong = new ConversationTimings(TIMINGS.leaseTtl(), TIMINGS.leaseRenewal(), Duration.ofHours(1),
                TIMINGS.idleEviction(), TIMINGS.maxHot(), TIMINGS.storeWait(), TIMINGS.handoverFlush(), TIMINGS.shutdownFlush(),
                TIMINGS.shutdownGrace());
        AtomicLong reads = new AtomicLong();
        Instance b = instance("instance-b", ANSWERS_OK, hourLong, () -> reads.getAndIncrement() * Duration.ofMinutes(20).toNanos());

        assertThatThrownBy(() -> b.turns().startTurn(Caller.LOCAL, id, "mine now?")).isInstanceOf(ConversationException.class)
                .extracting(e -> ((ConversationException) e).kind()).isEqualTo(ConversationException.Kind.BUSY);
        assertThat(reads).as("the deadline, then one look per try until it passed").hasValue(4);

        // Asked to, A hands it over on its next round: a wait that is not over yet ends with the conversation taken.
        reads.set(0);
        a.host().maintain();
        turn(b, id);
        assertThat(store.leasesHeldBy("instance-b")).contains(id);
    }

    @Test
    void aLeaseKeptAliveByRenewalNeverExpires() throws Exception {
        Instance a = instance("instance-a");
        Instance b = instance("instance-b");
        String id = a.conversations().create(Caller.LOCAL, "t").id();
        for (int i = 0; i < 10; i++) {
            clock.advance(TIMINGS.leaseTtl().dividedBy(2));
            a.host().maintain();
        }
        assertThatThrownBy(() -> b.turns().startTurn(Caller.LOCAL, id, "mine now?")).isInstanceOf(ConversationException.class)
                .extracting(e -> ((ConversationException) e).kind()).isEqualTo(ConversationException.Kind.BUSY);
        // B's request asks A to hand it over; A does so on its next round, as it is idle.
        a.host().maintain();
        assertThat(a.host().hotCount()).isZero();
        turn(b, id);
    }

    @Test
    void theTurnsOfAnInstanceStopAndFollowATurnAnotherInstanceRunsThroughItsOtherInstancesAndOnlyThen() throws Exception {
        Instance a = instance("instance-a", (call, listener, cancellation) -> {
            CountDownLatch stopped = new CountDownLatch(1);
            try (AutoCloseable onStop = cancellation.onCancel(stopped::countDown)) {
                stopped.await(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new ProviderException("interrupted", "interrupted");
            }
            return new ModelReply(null, Usage.UNKNOWN);
        });
        List<String> asked = new ArrayList<>();
        Instance b = instance("instance-b").reaching(new OnlyInstance(a, asked));
        String idle = a.conversations().create(Caller.LOCAL, "idle").id();
        String id = a.conversations().create(Caller.LOCAL, "t").id();
        AgentRun running = a.turns().startTurn(Caller.LOCAL, id, "hello from A");
        assertThat(writer.flush(Duration.ofSeconds(5))).isTrue(); // the turn is recorded running

        assertThat(b.turns().stop(Caller.LOCAL, idle)).as("no turn runs anywhere: nobody is asked").isFalse();
        assertThat(b.turns().follow(Caller.LOCAL, idle, 0)).isInstanceOf(Turns.Followed.Nothing.class);
        assertThat(asked).isEmpty();
        assertThatThrownBy(() -> b.turns().stop(new Caller("someone-else", false), id)).as("another person's: unknown")
                .isInstanceOfSatisfying(ConversationException.class, e -> assertThat(e.kind()).isEqualTo(ConversationException.Kind.NOT_FOUND));

        assertThat(b.turns().follow(Caller.LOCAL, id, 7)).as("the other instance answered for nothing")
                .isInstanceOf(Turns.Followed.Nothing.class);
        assertThat(b.turns().stop(Caller.LOCAL, id)).as("stopped on A, as B's store shows").isTrue();
        assertThat(asked).containsExactly("follow " + id + " after 7", "stop " + id);
        assertThat(running.awaitEnd(Duration.ofSeconds(10))).isTrue();
        assertThat(running.events().frames().getLast().event()).isInstanceOfSatisfying(AgentEvent.Done.class,
                done -> assertThat(done.stopReason()).isEqualTo(StopReason.CANCELLED));
        assertThat(a.turns().follow(Caller.LOCAL, id, 0)).as("on A the run is its own").isInstanceOf(Turns.Followed.Here.class);
    }

    @Test
    void leasesAreExtendedEveryThirdOfTheirTimeAndRequestsLookedForEveryRound() throws Exception {
        Instance a = instance("instance-a");
        Instance b = instance("instance-b");
        String id = a.conversations().create(Caller.LOCAL, "t").id();
        a.host().maintain();
        long extended = expiry(id);
        assertThat(extended).isEqualTo(clock.millis() + TIMINGS.leaseTtl().toMillis());

        clock.advance(TIMINGS.leaseTtl().dividedBy(3).minusMillis(1));
        a.host().maintain();
        assertThat(expiry(id)).as("within a third of the lease time a round only looks for requests").isEqualTo(extended);
        clock.advance(Duration.ofMillis(1));
        a.host().maintain();
        assertThat(expiry(id)).isEqualTo(clock.millis() + TIMINGS.leaseTtl().toMillis());

        clock.advance(Duration.ofMillis(200));
        assertThatThrownBy(() -> b.turns().startTurn(Caller.LOCAL, id, "mine now?")).isInstanceOf(ConversationException.class);
        a.host().maintain();
        assertThat(a.host().hotCount()).as("a request is seen in the next round, between extensions").isZero();
        turn(b, id);
    }

    /** When the conversation's lease expires, as the database file has it. */
    private long expiry(String id) throws Exception {
        try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + data.resolve("skillforge.db"));
             PreparedStatement select = connection.prepareStatement("SELECT expires_at FROM leases WHERE conversation_id = ?")) {
            select.setString(1, id);
            try (ResultSet rows = select.executeQuery()) {
                assertThat(rows.next()).as("a lease row for " + id).isTrue();
                return rows.getLong(1);
            }
        }
    }

    @Test
    void aTurnThatOutlivesItsLeaseWhileAnotherInstanceTakesOverEndsWithAnErrorAndNothingOfItIsStoredAfterTheTakeOver() throws Exception {
        Instance a = instance("instance-a", blocking());
        Instance b = instance("instance-b");
        String id = a.conversations().create(Caller.LOCAL, "t").id();
        AgentRun cut = a.turns().startTurn(Caller.LOCAL, id, "hello from A");
        assertThat(writer.flush(Duration.ofSeconds(5))).isTrue();

        // A is paused mid-turn past its lease; B takes over and runs a turn of its own.
        clock.advance(TIMINGS.leaseTtl().plusMillis(1));
        turn(b, id);

        answer.countDown(); // A goes on, not knowing yet
        assertThat(cut.events().awaitFinished(Duration.ofSeconds(10))).isTrue();
        AgentEvent last = cut.events().frames().getLast().event();
        assertThat(last).isInstanceOf(AgentEvent.Error.class);
        assertThat(((AgentEvent.Error) last).code()).isEqualTo(AgentRun.LEASE_LOST);
        assertThat(writer.flush(Duration.ofSeconds(5))).isTrue();
        assertThat(store.entries(id)).extracting(e -> e.content()).as("A's answer came after the take-over: refused")
                .containsExactly("hello from A", "hello", "ok");
        assertThat(store.turns(id)).extracting(t -> t.status()).containsExactly("interrupted", "complete");
        assertThat(a.host().hotCount()).isZero();
    }

    @Test
    void aWriteRefusedAsFencedDropsTheStaleCopy() throws Exception {
        Instance a = instance("instance-a");
        Instance b = instance("instance-b");
        String id = a.conversations().create(Caller.LOCAL, "t").id();
        turn(a, id);
        clock.advance(TIMINGS.leaseTtl().plusMillis(1));
        turn(b, id);

        a.conversations().rename(Caller.LOCAL, id, "renamed by the stale copy"); // A has not renewed since: its copy still looks hot
        assertThat(writer.flush(Duration.ofSeconds(5))).isTrue();

        assertThat(store.conversation(id).orElseThrow().title()).isEqualTo("t");
        assertThat(a.host().hotCount()).as("the refusal reached A, which dropped its copy").isZero();
    }
    @Test
    void aFullDiskIsNeverTakenForALeaseLostToAnotherInstanceNewTurnsAreRefusedWhileItLastsAndNothingIsLost() throws Exception {
        FullDiskStore disk = new FullDiskStore(store); // closed with the store, by close()
        StoreWriter diskWriter = new StoreWriter(disk, new StoreWriter.Options(500, Duration.ofMillis(10), Duration.ofMillis(50),
                Duration.ofSeconds(5)));
        opened.add(diskWriter);
        // One instance, alone on its database: no other instance can take anything over.
        ConversationTimings quickStoreWait = new ConversationTimings(TIMINGS.leaseTtl(), TIMINGS.leaseRenewal(), TIMINGS.handoverWait(),
                TIMINGS.idleEviction(), TIMINGS.maxHot(), Duration.ofMillis(100), TIMINGS.handoverFlush(), TIMINGS.shutdownFlush(),
                TIMINGS.shutdownGrace());
        AtomicInteger modelCalls = new AtomicInteger();
        AgentLoop loop = new AgentLoop((call, listener, cancellation) -> {
            modelCalls.incrementAndGet();
            listener.onText("ok");
            return new ModelReply(null, Usage.UNKNOWN);
        }, TurnLimits.DEFAULT);
        ConversationHost aloneHost = new ConversationHost(disk, diskWriter, "sys",
                ConversationModels.single("p", "m", loop, call -> Json.object()), new NoWorkspaces(), Budgets.NONE, PersonalDefaults.NONE, "instance-a", quickStoreWait, clock,
                System::nanoTime);
        opened.add(aloneHost);
        Instance alone = new Instance(aloneHost);
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        Logger conversationLogs = (Logger) LoggerFactory.getLogger("dev.skillforge.server.conversation");
        logs.start();
        conversationLogs.addAppender(logs);
        try {
            disk.setFull(true);
            String id = alone.conversations().create(Caller.LOCAL, "written later").id(); // held here; its creation waits in the writer
            awaitStorageFailure(diskWriter);

            // Past the lease time the renewal finds no lease in the store: the creation is not written, not taken over.
            clock.advance(TIMINGS.leaseTtl().plusSeconds(1));
            alone.host().maintain();
            assertThat(alone.host().hotCount()).as("still held: nobody else can lease a conversation the store does not have").isEqualTo(1);
            assertThat(logs.list).extracting(ILoggingEvent::getFormattedMessage).noneMatch(line -> line.contains("lost"));

            assertThatThrownBy(() -> alone.turns().startTurn(Caller.LOCAL, id, "hello")).isInstanceOfSatisfying(ConversationException.class, e -> {
                assertThat(e.kind()).isEqualTo(ConversationException.Kind.UNAVAILABLE);
                assertThat(e.getMessage()).contains("disk is full").contains("Nothing was sent to the model");
            });
            assertThatThrownBy(() -> alone.conversations().create(Caller.LOCAL, "another")).isInstanceOf(ConversationException.class);
            assertThat(modelCalls).hasValue(0);

            disk.setFull(false);
            assertThat(diskWriter.flush(Duration.ofSeconds(10))).as("what waited is written once there is room").isTrue();
            assertThat(diskWriter.storageFailure()).isEmpty();
            AgentRun run = alone.turns().startTurn(Caller.LOCAL, id, "hello");
            assertThat(run.events().awaitFinished(Duration.ofSeconds(10))).isTrue();
            assertThat(run.events().frames().getLast().event()).isInstanceOf(AgentEvent.Done.class);
            assertThat(diskWriter.flush(Duration.ofSeconds(10))).isTrue();
            assertThat(store.conversations(Caller.LOCAL_ID, 10, 0)).extracting(ConversationRecord::id).containsExactly(id);
            assertThat(store.turns(id)).extracting(TurnRecord::status).containsExactly("complete");
            assertThat(store.entries(id)).extracting(StoredEntry::content).containsExactly("hello", "ok");
            assertThat(store.leasesHeldBy("instance-a")).containsExactly(id);
            assertThat(logs.list).extracting(ILoggingEvent::getFormattedMessage).noneMatch(line -> line.contains("lost"));
        } finally {
            conversationLogs.detachAppender(logs);
        }
    }

    /** Waits until the writer has met the full disk (it tries at once). */
    private static void awaitStorageFailure(StoreWriter writer) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (writer.storageFailure().isEmpty()) {
            assertThat(System.nanoTime()).as("the writer reports the full disk").isLessThan(deadline);
            Thread.sleep(5);
        }
    }
}
