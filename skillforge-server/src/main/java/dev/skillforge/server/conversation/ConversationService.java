package dev.skillforge.server.conversation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.core.agent.AgentLoop;
import dev.skillforge.core.agent.EventSink;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.context.ContextView;
import dev.skillforge.core.transcript.Entry;
import dev.skillforge.core.transcript.StorableText;
import dev.skillforge.server.run.AgentRun;
import dev.skillforge.server.run.RunEventLog;
import dev.skillforge.server.store.ConversationRecord;
import dev.skillforge.server.store.ConversationStore;
import dev.skillforge.server.store.Lease;
import dev.skillforge.server.store.StoreException;
import dev.skillforge.server.store.StoreWriter;
import dev.skillforge.server.store.TurnRecord;
import dev.skillforge.server.store.Write;
import dev.skillforge.server.json.Json;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Conversations by id. Hot conversations (held in memory under this instance's lease) serve turns
 * with no database round trip: every change goes to the {@link StoreWriter}, in order. A cold
 * conversation is loaded once, after taking its lease, which is also what keeps two instances from
 * interleaving one conversation. Runs belong to the server, not to a connection: a client follows a
 * run's {@link RunEventLog} and may leave and come back.
 */
public final class ConversationService implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ConversationService.class);

    public static final int MAX_TITLE_LENGTH = 200;
    static final long LEASE_TTL_MILLIS = 15_000;
    static final Duration LEASE_RENEWAL = Duration.ofMillis(200);
    /** Idle hot conversations are let go after this long, or sooner when more than {@link #MAX_HOT} are held. */
    static final Duration IDLE_EVICTION = Duration.ofMinutes(10);
    static final int MAX_HOT = 1000;
    /** How long a request waits for another instance to hand a conversation over. */
    static final Duration HANDOVER_WAIT = Duration.ofSeconds(2);


    private final ConversationStore store;
    private final StoreWriter writer;
    private final String systemPrompt;
    private final ConversationModels models;
    private final String instanceId;
    private final Map<String, HotConversation> hot = new ConcurrentHashMap<>();
    private final Map<String, ReentrantLock> loading = new ConcurrentHashMap<>();
    private final ScheduledExecutorService leaseKeeper = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("lease-keeper").factory());

    /** @param systemPrompt the system prompt new conversations are fixed to (it is stored with each) */
    public ConversationService(ConversationStore store, StoreWriter writer, String systemPrompt, ConversationModels models) {
        this(store, writer, systemPrompt, models, UUID.randomUUID().toString());
    }

    /** @param instanceId this server's lease owner id ({@link InstanceIdentity}): the same across restarts on one data folder */
    public ConversationService(ConversationStore store, StoreWriter writer, String systemPrompt, ConversationModels models, String instanceId) {
        this.instanceId = instanceId;
        this.store = store;
        this.writer = writer;
        this.systemPrompt = systemPrompt;
        this.models = models;
        leaseKeeper.scheduleWithFixedDelay(this::keepLeases, LEASE_RENEWAL.toMillis(), LEASE_RENEWAL.toMillis(), TimeUnit.MILLISECONDS);
    }

    public String instanceId() {
        return instanceId;
    }

    /** Creates a conversation: it is hot here at once and reaches the database in the background. */
    public ConversationRecord create(String title) {
        return create(title, null, null);
    }

    /**
     * Creates a conversation fixed to a provider and its model ({@code null}: the default), with
     * the system prompt of this server: none of them changes afterwards.
     */
    public ConversationRecord create(String title, String provider, String model) {
        String validTitle = title == null ? "" : validTitle(title);
        ConversationModels.Choice choice = models.choose(provider, model);
        long now = System.currentTimeMillis();
        String id = UUID.randomUUID().toString(); // 122 random bits from SecureRandom
        ConversationRecord record = new ConversationRecord(id, validTitle, systemPrompt, choice.provider(), choice.model(), now, now);
        HotConversation conversation = new HotConversation(record, List.of(), List.of(), writer::submitAll);
        // A new random id cannot be leased by anyone else yet: the lease is written with the conversation.
        writer.submit(new Write.CreateConversation(record, instanceId, now + LEASE_TTL_MILLIS));
        conversation.leaseConfirmedUntilMillis = now + LEASE_TTL_MILLIS;
        hot.put(id, conversation);
        // Other instances know a conversation only from the database: store it (with its lease) before
        // the client has its id, or a request sent to another instance at once is answered 404.
        // Bounded, and not a turn: during an outage the conversation still starts here and is written later.
        writer.flush(Duration.ofSeconds(2));
        return record;
    }

    /** Conversations, most recently updated first. Waits briefly for the writer so a new one is listed. */
    public List<ConversationRecord> list(int limit, int offset) {
        writer.flush(Duration.ofSeconds(2));
        try {
            return store.conversations(limit, offset);
        } catch (StoreException e) {
            throw unavailable(e);
        }
    }

    public long count() {
        try {
            return store.count();
        } catch (StoreException e) {
            throw unavailable(e);
        }
    }

    public boolean isRunning(String id) {
        HotConversation conversation = hot.get(id);
        if (conversation == null) {
            return false;
        }
        synchronized (conversation) {
            return conversation.isRunning();
        }
    }

    /** A conversation as the page shows it: its entries verbatim and its turns. */
    public ConversationSnapshot snapshot(String id) {
        HotConversation conversation = hot.get(validId(id));
        if (conversation != null) {
            synchronized (conversation) {
                return ConversationSnapshot.of(conversation);
            }
        }
        awaitWriter(); // read our own writes (a delete, a hand-over) before reading the store
        try {
            ConversationRecord record = store.conversation(id).orElseThrow(() -> ConversationException.notFound(id));
            return ConversationSnapshot.of(record, store.entries(id), store.turns(id), false);
        } catch (StoreException e) {
            throw unavailable(e);
        }
    }

    /**
     * The conversation's record (its provider, model, title…), loading the conversation here if needed.
     *
     * @throws ConversationException NOT_FOUND for an unknown id, BUSY when another instance runs a turn of it
     */
    public ConversationRecord record(String id) {
        HotConversation conversation = hotOrLoad(id);
        synchronized (conversation) {
            return conversation.record;
        }
    }

    public ConversationRecord rename(String id, String title) {
        HotConversation conversation = hotOrLoad(id);
        String valid = validTitle(title);
        synchronized (conversation) {
            long now = System.currentTimeMillis();
            ConversationRecord r = conversation.record;
            conversation.record = new ConversationRecord(r.id(), valid, r.systemPrompt(), r.provider(), r.model(), r.createdAtMillis(), now);
            conversation.write(new Write.SetTitle(id, valid, now));
            return conversation.record;
        }
    }

    public void delete(String id) {
        HotConversation conversation = hotOrLoad(id);
        synchronized (conversation) {
            if (conversation.isRunning()) {
                throw new ConversationException(ConversationException.Kind.BUSY, "A turn is running; stop it before deleting the conversation");
            }
            conversation.released = true;
            hot.remove(id, conversation);
            conversation.write(new Write.DeleteConversation(id));
        }
    }

    /**
     * Starts a turn with the person's new message.
     *
     * @throws ConversationException BUSY when a turn of the conversation is running (here or elsewhere)
     */
    public AgentRun startTurn(String id, String content) {
        if (content == null || content.isBlank()) {
            throw new ConversationException(ConversationException.Kind.INVALID, "The message is empty");
        }
        requireStorable("message", content);
        while (true) {
            HotConversation conversation = hotOrLoad(id);
            synchronized (conversation) {
                if (conversation.released) {
                    continue; // handed over or deleted meanwhile: load again
                }
                if (conversation.isRunning()) {
                    throw new ConversationException(ConversationException.Kind.BUSY,
                            "A turn of this conversation is running; wait for it or stop it");
                }
                return begin(conversation, content);
            }
        }
    }

    private AgentRun begin(HotConversation conversation, String content) {
        ConversationModels.Choice choice = new ConversationModels.Choice(conversation.record.provider(), conversation.record.model());
        AgentLoop loop = models.loop(choice);
        long now = System.currentTimeMillis();
        int turn = conversation.currentTurn + 1;
        conversation.currentTurn = turn;
        conversation.eventIds.updateAndGet(v -> Math.max(v, (long) turn << 32)); // ids stay increasing across reloads
        TurnRecord started = new TurnRecord(conversation.id, turn, TurnRecord.RUNNING, now, null, null);
        conversation.turns.add(started);
        // The turn's record, its title and its message land together, or not at all.
        conversation.inOneTransaction(() -> {
            conversation.write(new Write.PutTurn(started));
            if (conversation.record.title().isEmpty()) {
                String title = titleFrom(content);
                ConversationRecord r = conversation.record;
                conversation.record = new ConversationRecord(r.id(), title, r.systemPrompt(), r.provider(), r.model(), r.createdAtMillis(), now);
                conversation.write(new Write.SetTitle(conversation.id, title, now));
            }
            conversation.transcript.append(new Entry.User(content));
        });
        TurnRecorder recorder = new TurnRecorder();
        EventSink metrics = models.runObserver(choice);
        RunEventLog events = new RunEventLog(conversation.eventIds::incrementAndGet);
        conversation.runningRecorder = recorder;
        conversation.running = AgentRun.start(loop, conversation.transcript, conversation.record.systemPrompt(),
                conversation.id, events, event -> {
                    recorder.accept(event);
                    metrics.accept(event);
                }, last -> finish(conversation, turn, started, recorder));
        return conversation.running;
    }

    private void finish(HotConversation conversation, int turn, TurnRecord started, TurnRecorder recorder) {
        synchronized (conversation) {
            var summary = recorder.summary();
            TurnRecord ended = new TurnRecord(conversation.id, turn, summary.path("status").asText("failed"),
                    started.startedAtMillis(), System.currentTimeMillis(), Json.write(summary));
            conversation.turns.set(conversation.turns.indexOf(started), ended);
            conversation.write(new Write.PutTurn(ended));
            conversation.lastRun = conversation.running;
            conversation.running = null;
            conversation.runningRecorder = null;
        }
    }

    /** The running turn, or else the last one run here since this conversation was loaded. */
    public Optional<AgentRun> currentOrLastRun(String id) {
        HotConversation conversation = hot.get(validId(id));
        if (conversation == null) {
            snapshot(id); // 404 for an unknown id
            return Optional.empty();
        }
        synchronized (conversation) {
            return Optional.ofNullable(conversation.running != null ? conversation.running : conversation.lastRun);
        }
    }

    /** Stops the running turn; false when none was running. */
    public boolean stop(String id) {
        HotConversation conversation = hot.get(validId(id));
        if (conversation == null) {
            snapshot(id);
            return false;
        }
        AgentRun run;
        synchronized (conversation) {
            run = conversation.running;
        }
        if (run == null) {
            return false;
        }
        run.cancel("stopped by the user");
        return true;
    }

    /**
     * The exact messages array the conversation's provider receives next (before the next user
     * message): the model's view, as the last context cut left it.
     */
    public JsonNode nextRequestMessages(String id) {
        ExportSource source = exportSource(id);
        ConversationRecord record = source.record();
        return models.nextRequestMessages(new ConversationModels.Choice(record.provider(), record.model()),
                new ModelCall(record.systemPrompt(), ContextView.visible(source.entries()), record.id()));
    }

    /** The entries and system prompt the provider would receive next. */
    public ExportSource exportSource(String id) {
        ConversationSnapshot snapshot = snapshot(id);
        return new ExportSource(snapshot.record(), snapshot.entries().stream().map(HotConversation::entryOf).toList(), snapshot);
    }

    public record ExportSource(ConversationRecord record, List<Entry> entries, ConversationSnapshot snapshot) {
    }

    /** The conversation in memory, loading it (and taking its lease) if needed. */
    private HotConversation hotOrLoad(String id) {
        HotConversation conversation = hot.get(validId(id));
        if (conversation != null) {
            conversation.lastUsedMillis = System.currentTimeMillis();
            return conversation;
        }
        ReentrantLock lock = loading.computeIfAbsent(id, k -> new ReentrantLock());
        lock.lock();
        try {
            conversation = hot.get(id);
            if (conversation != null) {
                return conversation;
            }
            conversation = load(id);
            hot.put(id, conversation);
            return conversation;
        } catch (StoreException e) {
            throw unavailable(e);
        } finally {
            lock.unlock();
            loading.remove(id, lock);
        }
    }

    private void awaitWriter() {
        if (!writer.flush(Duration.ofSeconds(2))) {
            throw new ConversationException(ConversationException.Kind.UNAVAILABLE,
                    "The conversation store is unavailable right now; try again shortly");
        }
    }

    private HotConversation load(String id) {
        awaitWriter(); // cold path only: what this instance wrote (a delete, the last entries before a hand-over) is in the store
        // Unknown ids are answered before any lease is taken, so probing leaves no trace.
        if (store.conversation(id).isEmpty()) {
            throw ConversationException.notFound(id);
        }
        long deadline = System.nanoTime() + HANDOVER_WAIT.toNanos();
        while (true) {
            long now = System.currentTimeMillis();
            Lease lease = store.acquireLease(id, instanceId, now, LEASE_TTL_MILLIS);
            if (lease instanceof Lease.Held held) {
                ConversationRecord record = store.conversation(id).orElseThrow(() -> ConversationException.notFound(id));
                List<TurnRecord> turns = new ArrayList<>(store.turns(id));
                HotConversation conversation = new HotConversation(record, store.entries(id), List.of(), writer::submitAll);
                markInterrupted(id, turns);
                conversation.turns.addAll(turns);
                conversation.currentTurn = Math.max(turns.isEmpty() ? -1 : turns.getLast().turn(),
                        conversation.stored.isEmpty() ? -1 : conversation.stored.getLast().turn());
                conversation.leaseConfirmedUntilMillis = held.expiresAtMillis();
                return conversation;
            }
            if (System.nanoTime() > deadline) {
                throw new ConversationException(ConversationException.Kind.BUSY,
                        "This conversation is in use on another server instance; try again when its turn has ended");
            }
            sleep(Duration.ofMillis(100));
        }
    }

    /** We hold the lease, so a turn still marked running was cut off by a crash: say so, never show it complete. */
    private void markInterrupted(String id, List<TurnRecord> turns) {
        for (int i = 0; i < turns.size(); i++) {
            TurnRecord turn = turns.get(i);
            if (TurnRecord.RUNNING.equals(turn.status())) {
                TurnRecord interrupted = new TurnRecord(turn.conversationId(), turn.turn(), TurnRecord.INTERRUPTED,
                        turn.startedAtMillis(), System.currentTimeMillis(), "{\"status\":\"interrupted\"}");
                turns.set(i, interrupted);
                writer.submit(new Write.PutTurn(interrupted));
                log.warn("conversation {}: turn {} was interrupted (the server stopped during it)", id, turn.turn());
            }
        }
    }

    /**
     * Finishes what a crash of this instance's previous life (same id: same data folder) left: the
     * turns it was running are marked interrupted and its leases are given back, so a restart shows
     * them as cut at once, and any instance can go on with those conversations without waiting for
     * the dead leases to expire. Call once at start, before serving.
     *
     * @return how many conversations were recovered
     */
    public int recover() {
        Set<String> leftovers;
        try {
            leftovers = store.leasesHeldBy(instanceId);
        } catch (StoreException e) {
            log.warn("recovery: cannot read the leases of the previous run: {}", e.getMessage());
            return 0;
        }
        for (String id : leftovers) {
            markInterrupted(id, new ArrayList<>(store.turns(id)));
        }
        if (leftovers.isEmpty() || !writer.flush(Duration.ofSeconds(10))) {
            return 0;
        }
        for (String id : leftovers) {
            store.releaseLease(id, instanceId);
        }
        log.info("recovered {} conversations left by the previous run of this server", leftovers.size());
        return leftovers.size();
    }

    /** Renews the leases of hot conversations and hands over those another instance asks for, when idle. */
    private void keepLeases() {
        try {
            Set<String> ids = Set.copyOf(hot.keySet());
            if (ids.isEmpty()) {
                return;
            }
            long sentAt = System.currentTimeMillis();
            ConversationStore.Renewal renewal = store.renewLeases(instanceId, ids, sentAt, LEASE_TTL_MILLIS);
            for (String id : ids) {
                HotConversation conversation = hot.get(id);
                if (conversation == null) {
                    continue;
                }
                if (renewal.held().contains(id)) {
                    conversation.leaseConfirmedUntilMillis = sentAt + LEASE_TTL_MILLIS;
                    if (renewal.requested().contains(id)) {
                        letGo(conversation, "handed over to another instance");
                    }
                } else if (System.currentTimeMillis() - conversation.record.createdAtMillis() > LEASE_TTL_MILLIS) {
                    // (A conversation younger than a lease period may simply not be written yet.)
                    // Not ours any more (taken over while we could not renew): never run another turn from this copy.
                    synchronized (conversation) {
                        if (!conversation.isRunning()) {
                            conversation.released = true;
                            hot.remove(id, conversation);
                            log.warn("conversation {}: lease lost; dropped from memory", id);
                        }
                    }
                }
            }
            evictIdle();
        } catch (StoreException e) {
            log.debug("lease renewal failed: {}", e.getMessage());
        } catch (RuntimeException e) {
            log.warn("lease keeper: {}", e.toString());
        }
    }

    /** Bounds memory: idle conversations leave memory (and give their lease back) after a while, oldest first. */
    private void evictIdle() {
        long now = System.currentTimeMillis();
        List<HotConversation> oldestFirst = hot.values().stream()
                .sorted(Comparator.comparingLong(c -> c.lastUsedMillis)).toList();
        int excess = oldestFirst.size() - MAX_HOT;
        for (HotConversation conversation : oldestFirst) {
            if (now - conversation.lastUsedMillis <= IDLE_EVICTION.toMillis() && excess <= 0) {
                break; // everything after this one is newer
            }
            letGo(conversation, "idle");
            excess--;
        }
    }

    /**
     * Drops a conversation from memory unless a turn runs on it (then the other instance's request
     * gets 409), flushes its writes and gives the lease back, so whoever takes it next loads the
     * whole history.
     */
    private void letGo(HotConversation conversation, String why) {
        // Hold the loading lock: a request here must not re-load (and re-own) the conversation between
        // its removal and the lease release below.
        ReentrantLock lock = loading.computeIfAbsent(conversation.id, k -> new ReentrantLock());
        lock.lock();
        try {
            synchronized (conversation) {
                if (conversation.isRunning()) {
                    return;
                }
                conversation.released = true;
                hot.remove(conversation.id, conversation);
            }
            if (writer.flush(Duration.ofSeconds(5))) {
                store.releaseLease(conversation.id, instanceId);
                log.debug("conversation {}: let go ({})", conversation.id, why);
            }
        } finally {
            lock.unlock();
            loading.remove(conversation.id, lock);
        }
    }

    private static void requireStorable(String what, String text) {
        int bad = StorableText.firstBad(text);
        if (bad >= 0) {
            throw new ConversationException(ConversationException.Kind.INVALID,
                    "The " + what + " holds U+" + String.format("%04X", (int) text.charAt(bad)) + " at index " + bad + ", which cannot be stored");
        }
    }

    static String validTitle(String title) {
        requireStorable("title", title);
        String stripped = title.strip();
        if (stripped.length() > MAX_TITLE_LENGTH) {
            throw new ConversationException(ConversationException.Kind.INVALID,
                    "The title is " + stripped.length() + " characters; the limit is " + MAX_TITLE_LENGTH);
        }
        return stripped;
    }

    private static String titleFrom(String content) {
        String line = content.strip().lines().findFirst().orElse("").strip();
        if (line.length() <= 60) {
            return line;
        }
        return StorableText.prefix(line, 60).strip() + "…";
    }

    /** Ids are UUIDs; anything else cannot exist (and is answered like an unknown id). */
    private static String validId(String id) {
        if (id == null || id.length() != 36) {
            throw ConversationException.notFound(id == null ? "" : id);
        }
        try {
            if (!UUID.fromString(id).toString().equals(id)) {
                throw ConversationException.notFound(id);
            }
        } catch (IllegalArgumentException e) {
            throw ConversationException.notFound(id);
        }
        return id;
    }

    private static ConversationException unavailable(StoreException e) {
        log.warn("storage unavailable: {}", e.getMessage());
        return new ConversationException(ConversationException.Kind.UNAVAILABLE,
                "The conversation store is unavailable right now; try again shortly");
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConversationException(ConversationException.Kind.UNAVAILABLE, "interrupted");
        }
    }

    /**
     * Graceful shutdown: running turns are stopped and recorded as cancelled, every write is
     * flushed, and the leases are given back.
     */
    @Override
    public void close() {
        leaseKeeper.shutdownNow();
        List<AgentRun> runs = new ArrayList<>();
        for (HotConversation conversation : hot.values()) {
            synchronized (conversation) {
                if (conversation.running != null) {
                    runs.add(conversation.running);
                }
            }
        }
        runs.forEach(run -> run.cancel("the server is shutting down"));
        for (AgentRun run : runs) {
            if (!run.awaitEnd(Duration.ofSeconds(5))) {
                log.warn("shutdown: a turn did not stop within 5 s");
            }
        }
        if (!writer.flush(Duration.ofSeconds(10))) {
            log.warn("shutdown: {} writes could not be stored; leases are left to expire", writer.pending());
            return; // releasing now would let another instance load a conversation whose last writes are still queued here
        }
        for (String id : hot.keySet()) {
            try {
                store.releaseLease(id, instanceId);
            } catch (StoreException e) {
                break;
            }
        }
    }
}
