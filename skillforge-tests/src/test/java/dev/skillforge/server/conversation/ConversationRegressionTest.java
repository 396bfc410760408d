package dev.skillforge.server.conversation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.server.people.Caller;
import dev.skillforge.core.agent.AgentLoop;
import dev.skillforge.core.agent.ModelReply;
import dev.skillforge.core.agent.ModelProvider;
import dev.skillforge.core.agent.TurnLimits;
import dev.skillforge.core.agent.Usage;
import dev.skillforge.core.transcript.Entry;
import dev.skillforge.testkit.NoWorkspaces;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.testkit.SseClient;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.testkit.SimScript;
import dev.skillforge.server.run.AgentRun;
import dev.skillforge.server.store.ConversationRecord;
import dev.skillforge.server.store.JdbcConversationStore;
import dev.skillforge.server.store.Lease;
import dev.skillforge.server.store.StoreWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.skillforge.testkit.LatencyInjectingStore;

import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** Regression tests, each named after a bug found in review, asserting the fixed behaviour. */
class ConversationRegressionTest {

    private static List<SseClient.Event> turn(ServerHarness server, String id, String content) throws Exception {
        return SseClient.postForEvents(server.url("/api/conversations/" + id + "/messages"), Json.write(Json.object().put("content", content)));
    }

    /** Regression: after a reload the turn counter restarts at 0 and overwrites turn 0. */
    @Test
    void turnNumbersContinueAfterARestart(@TempDir Path data) throws Exception {
        String id;
        try (ServerHarness server = new ServerHarness(data, new SimScript(SimReply.of("first answer")))) {
            id = SseClient.send("POST", server.url("/api/conversations"), "{}").json().path("id").asText();
            turn(server, id, "first");
        }
        try (ServerHarness server = new ServerHarness(data, new SimScript(SimReply.of("second answer")))) {
            turn(server, id, "second");
            assertThat(server.writer.flush(Duration.ofSeconds(5))).isTrue();
            assertThat(server.database.turns(id)).extracting(t -> t.turn()).containsExactly(0, 1);
        }
    }

    /** Regression: a NUL in the title: 201, works in memory, never reaches the database. Now refused up front, nothing stored. */
    @Test
    void aNulInTheTitleLosesTheWholeConversation(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript(SimReply.of("answer")))) {
            SseClient.Answer created = SseClient.send("POST", server.url("/api/conversations"), "{\"title\":\"a\\u0000b\"}");
            assertThat(created.status()).isEqualTo(400);
            assertThat(created.json().path("error").path("message").asText()).contains("U+0000");
            assertThat(server.writer.flush(Duration.ofSeconds(5))).isTrue();
            assertThat(server.database.count(Caller.LOCAL_ID)).isZero();
        }
    }

    /** Regression: one refused entry shifts nextSeq after reload: the next new entry collides and is silently ignored. */
    @Test
    void aDroppedEntryMakesTheFirstEntryAfterReloadVanish(@TempDir Path data) throws Exception {
        String id;
        try (ServerHarness server = new ServerHarness(data, new SimScript(SimReply.of("a1"), SimReply.of("a2")))) {
            id = SseClient.send("POST", server.url("/api/conversations"), "{\"title\":\"t\"}").json().path("id").asText();
            SseClient.postForAnswer(server.url("/api/conversations/" + id + "/messages"), "{\"content\":\"nul \\u0000 here\"}");
            turn(server, id, "two");
        }
        try (ServerHarness server = new ServerHarness(data, new SimScript(SimReply.of("a3")))) {
            turn(server, id, "three");
            JsonNode hot = SseClient.get(server.url("/api/conversations/" + id)).json();
            assertThat(server.writer.flush(Duration.ofSeconds(5))).isTrue();
            List<String> stored = server.database.entries(id).stream().map(e -> e.seq() + ":" + e.content()).toList();
            assertThat(stored).anyMatch(s -> s.endsWith(":three"));
        }
    }

    /** Regression: snapshot copies 'stored' while the run thread appends to it under a different lock. */
    @Test
    void snapshotRacesTheRunThreadsAppends() throws Exception {
        ConversationRecord record = new ConversationRecord("00000000-0000-4000-8000-000000000000", "t", "sys", "p", "m", 0, 0, Caller.LOCAL_ID);
        HotConversation conversation = new HotConversation(record, List.of(), List.of(), new Lease.Held(record.id(), 1, Long.MAX_VALUE),
                c -> true, () -> true, w -> { }, InstantSource.system());
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread appender = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < 100_000 && failure.get() == null; i++) {
                conversation.transcript().append(new Entry.User("x"));
            }
        });
        while (appender.isAlive() && failure.get() == null) {
            try {
                conversation.snapshot();
            } catch (Throwable t) {
                failure.set(t);
            }
        }
        appender.join();
        assertThat(failure.get()).isNull();
    }

    /** Regression: the client sees 'done', sends the next message at once, and gets 409 because finish() has not run yet. */
    @Test
    void theNextTurnRightAfterDoneIsRefused(@TempDir Path data) throws Exception {
        ModelProvider instant = (call, listener, cancellation) -> {
            listener.onText("ok");
            return new ModelReply(null, Usage.UNKNOWN);
        };
        AgentLoop loop = new AgentLoop(instant, TurnLimits.DEFAULT);
        try (JdbcConversationStore store = JdbcConversationStore.open(null, null, null, data);
             StoreWriter writer = new StoreWriter(store);
             ConversationHost host = new ConversationHost(store, writer, "sys", ConversationModels.single("p", "m", loop, call -> Json.object()),
                     new NoWorkspaces())) {
            Turns turns = new Turns(host, Optional.empty());
            String id = new Conversations(host).create(Caller.LOCAL, "t").id();
            int busy = 0;
            for (int i = 0; i < 2000; i++) {
                AgentRun run;
                try {
                    run = turns.startTurn(Caller.LOCAL, id, "m" + i);
                } catch (ConversationException e) {
                    busy++;
                    Thread.sleep(5);
                    continue;
                }
                run.events().awaitFinished(Duration.ofSeconds(5)); // the client has read 'done'
            }
            assertThat(busy).isZero();
        }
    }

    /** Regression: shutdown while a turn runs and a client follows it: how long, and is the turn recorded cancelled? */
    @Test
    void shutdownDuringATurn(@TempDir Path data) throws Exception {
        SimReply endless = SimReply.of("Working").withFault(new SimReply.Stall(1));
        ServerHarness server = new ServerHarness(data, new SimScript(endless));
        String id = SseClient.send("POST", server.url("/api/conversations"), "{}").json().path("id").asText();
        var running = SseClient.open(server.url("/api/conversations/" + id + "/messages"), "{\"content\":\"Go\"}");
        SseClient.readEvents(running.body(), 1);
        server.close();
        try (JdbcConversationStore store = JdbcConversationStore.open(null, null, null, data)) {
            assertThat(store.turns(id)).extracting(t -> t.status()).containsExactly("cancelled");
        }
    }

    /** Regression: event ids restart at 1 after a reload, so a Last-Event-ID from before hides the new run's events. */
    @Test
    void eventIdsAfterAReload(@TempDir Path data) throws Exception {
        String id;
        long lastSeen;
        try (ServerHarness server = new ServerHarness(data, new SimScript(SimReply.of("a", "b", "c", "d", "e")))) {
            id = SseClient.send("POST", server.url("/api/conversations"), "{}").json().path("id").asText();
            lastSeen = turn(server, id, "first").getLast().id();
        }
        try (ServerHarness server = new ServerHarness(data, new SimScript(SimReply.of("x")))) {
            List<SseClient.Event> second = turn(server, id, "second");
            List<SseClient.Event> resumed = SseClient.getEvents(server.url("/api/conversations/" + id + "/events"), lastSeen);
            assertThat(second.getFirst().id()).isGreaterThan(lastSeen);
            assertThat(resumed).extracting(SseClient.Event::id).containsExactlyElementsOf(second.stream().map(SseClient.Event::id).toList());
        }
    }

    /** Regression: cold reads do not wait for the writer: a deleted conversation is still served, and a turn resurrects it in memory. */
    @Test
    void readsRightAfterDelete(@TempDir Path data) throws Exception {
        try (ServerHarness server = ServerHarness.builder(data, new SimScript(SimReply.of("a1"), SimReply.of("a2")))
                .providerTimeout(Duration.ofSeconds(10)).wrapStore(store -> new LatencyInjectingStore(store, Duration.ofMillis(300)))
                .start()) {
            String id = SseClient.send("POST", server.url("/api/conversations"), "{}").json().path("id").asText();
            turn(server, id, "one");
            assertThat(server.writer.flush(Duration.ofSeconds(5))).isTrue();
            assertThat(SseClient.send("DELETE", server.url("/api/conversations/" + id), null).status()).isEqualTo(204);
            int get = SseClient.get(server.url("/api/conversations/" + id)).status();
            SseClient.Answer again = SseClient.postForAnswer(server.url("/api/conversations/" + id + "/messages"), "{\"content\":\"two\"}");
            assertThat(get).isEqualTo(404);
            assertThat(again.status()).isEqualTo(404);
            assertThat(server.writer.flush(Duration.ofSeconds(5))).isTrue();
            assertThat(server.database.conversation(id)).isEmpty();
        }
    }

    /** Regression: the automatic title cuts an emoji in half: the SetTitle write is refused and dropped. */
    @Test
    void automaticTitleSplitsASurrogatePair(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript(SimReply.of("ok")))) {
            String id = SseClient.send("POST", server.url("/api/conversations"), "{}").json().path("id").asText();
            turn(server, id, "a".repeat(59) + "\uD83D\uDE00 and more");
            assertThat(server.writer.flush(Duration.ofSeconds(5))).isTrue();
            assertThat(server.writer.health().dropped()).isZero();
        }
    }

    /** Regression: a provider that sends only SSE comments never trips the idle timeout (1 s here): the turn hung. */
    @Test
    void keepAliveCommentsDefeatTheIdleTimeout(@TempDir Path data) throws Exception {
        SimReply stall = SimReply.of("Working").withFault(new SimReply.Stall(1));
        try (ServerHarness server = ServerHarness.builder(data, new SimScript(stall)).providerTimeout(Duration.ofSeconds(1)).start()) {
            List<SseClient.Event> events = SseClient.postForEvents(server.url("/api/agent"), SseClient.userMessage("hi"));
            SseClient.Event last = events.getLast();
            assertThat(last.type()).isEqualTo("error");
            assertThat(last.text("code")).isEqualTo("provider_timeout");
        }
    }
}
