package dev.skillforge.server.conversation;

import dev.skillforge.core.transcript.StorableText;
import dev.skillforge.server.people.Caller;
import dev.skillforge.server.run.AgentRun;
import dev.skillforge.server.store.ConversationRecord;
import dev.skillforge.server.store.ConversationStore;
import dev.skillforge.server.store.StoreException;
import dev.skillforge.server.store.StoreWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The conversations this instance holds, and their life: hot copies ({@link HotConversations}, in memory under this
 * instance's lease) serve turns with no database round trip, every change going to the {@link StoreWriter} in order; a
 * cold conversation is loaded once, after taking its lease, which is also what keeps two instances from interleaving
 * one conversation ({@link LeaseKeeper}). What callers do with them is in {@link Conversations} (by id, list, search),
 * {@link Turns} (start, stop, follow: here or on another instance), {@link Forks} and {@link Attachments}, each built on
 * one host; the host itself recovers, renews leases, drains and closes.
 *
 * <p>Time comes from the {@link InstantSource} given (records, leases, idle eviction) and from a monotonic ticker in
 * nanoseconds, as {@link System#nanoTime()} (how long a request waits for a hand-over or for a turn elsewhere to end,
 * how long a drain lets turns finish; a wall clock set back would stretch those), so all of them can be tested
 * without waiting; {@link #maintain()} is the periodic work that {@link #startMaintenance()} schedules.
 */
public final class ConversationHost implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ConversationHost.class);

    final StoreWriter writer;
    final String systemPrompt;
    final ConversationModels models;
    final ConversationStore store;
    final ConversationCommands commands;
    final Budgets budgets;
    final PersonalDefaults defaults;
    final ConversationTimings timings;
    final InstantSource clock;
    final LongSupplier ticker;
    private final String instanceId;
    final HotConversations hot;
    private final LeaseKeeper leases;
    final ThreadBranches threads;
    private final ConversationChanges changes = new ConversationChanges();
    private ScheduledExecutorService maintenance;
    /** Set by {@link #drain}: no new conversation or turn starts here. */
    private volatile boolean draining;

    /** A host with its own random instance id, no budgets, the default timings and the system's clocks (tests). */
    public ConversationHost(ConversationStore store, StoreWriter writer, String systemPrompt, ConversationModels models,
                            ConversationCommands commands) {
        this(store, writer, systemPrompt, models, commands, Budgets.NONE, PersonalDefaults.NONE, UUID.randomUUID().toString(),
                ConversationTimings.DEFAULTS, InstantSource.system(), System::nanoTime);
    }

    /**
     * @param systemPrompt the system prompt new conversations are fixed to (it is stored with each)
     * @param commands     where each conversation's commands run
     * @param budgets      what each person may still spend: checked before a turn, told what it cost after
     * @param defaults     what each person chose for the conversations they start (provider, instructions)
     * @param instanceId   this server's lease owner id ({@link InstanceIdentity}): the same across restarts on one data folder
     * @param clock        the time for records, leases and idle eviction
     * @param ticker       nanoseconds, never set back ({@link System#nanoTime()}): the time the waits are measured in
     */
    public ConversationHost(ConversationStore store, StoreWriter writer, String systemPrompt, ConversationModels models,
                            ConversationCommands commands, Budgets budgets, PersonalDefaults defaults, String instanceId,
                            ConversationTimings timings, InstantSource clock, LongSupplier ticker) {
        this.store = store;
        this.writer = writer;
        this.systemPrompt = systemPrompt;
        this.models = models;
        this.commands = commands;
        this.budgets = budgets;
        this.defaults = defaults;
        this.timings = timings;
        this.clock = clock;
        this.ticker = ticker;
        this.instanceId = instanceId;
        this.hot = new HotConversations(store, writer, instanceId, timings, clock, ticker);
        this.leases = new LeaseKeeper(store, instanceId, hot, timings.leaseTtl(), clock);
        this.threads = new ThreadBranches(store);
        writer.onFenced(fenced -> hot.fenced(fenced.conversationId(), fenced.epoch()));
    }

    /** Renews leases and lets idle conversations go every {@link ConversationTimings#leaseRenewal()}, on a thread of its own. */
    public synchronized void startMaintenance() {
        if (maintenance == null) {
            maintenance = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("lease-keeper").factory());
            long period = timings.leaseRenewal().toMillis();
            maintenance.scheduleWithFixedDelay(this::maintain, period, period, TimeUnit.MILLISECONDS);
        }
    }

    /** One round of the periodic work: leases renewed (or handed over, or found lost), then idle conversations let go. */
    void maintain() {
        try {
            leases.renew();
            hot.evictIdle();
        } catch (RuntimeException e) {
            log.warn("lease keeper: {}", e.toString());
        }
    }

    /** How many conversations are in memory now. */
    int hotCount() {
        return hot.size();
    }

    /**
     * Finishes what a crash of this instance's previous life left (see {@link HotConversations#recover()}).
     * Call once at start, before serving.
     *
     * @return how many conversations were recovered
     */
    public int recover() {
        return hot.recover();
    }

    /** What changes in the conversations here, for the pages' live lists. */
    public ConversationChanges changes() {
        return changes;
    }

    /** This instance's lease owner id. */
    public String instanceId() {
        return instanceId;
    }

    /**
     * Conversation {@code id} held here, if the caller owns it. Another person's conversation is NOT_FOUND, exactly as
     * a missing one, and is not even loaded (its lease is not taken): the store's query is by owner.
     */
    HotConversation owned(Caller caller, String id) {
        validId(id);
        if (hot.get(id).isEmpty()) {
            hot.awaitWriter(); // our own writes (a create, a delete) are in the store
            try {
                if (store.conversation(caller.personId(), id).isEmpty()) {
                    throw ConversationException.notFound(id);
                }
            } catch (StoreException e) {
                throw ConversationException.unavailable(e);
            }
        }
        HotConversation conversation = hot.getOrLoad(id);
        if (!conversation.record().owner().equals(caller.personId())) {
            throw ConversationException.notFound(id);
        }
        return conversation;
    }

    /** A conversation of the caller as the page shows it: its entries verbatim and its turns. */
    ConversationSnapshot snapshot(Caller caller, String id) {
        Optional<HotConversation> conversation = hot.get(validId(id));
        if (conversation.isPresent()) {
            ConversationSnapshot snapshot = conversation.get().snapshot();
            if (snapshot.record().owner().equals(caller.personId())) {
                return snapshot;
            }
            throw ConversationException.notFound(id);
        }
        hot.awaitWriter(); // read our own writes (a delete, a hand-over) before reading the store
        try {
            ConversationRecord record = store.conversation(caller.personId(), id).orElseThrow(() -> ConversationException.notFound(id));
            return ConversationSnapshot.of(record, store.entries(id), store.turns(id), false);
        } catch (StoreException e) {
            throw ConversationException.unavailable(e);
        }
    }

    /**
     * NOT_FOUND unless the store has the conversation: one row read, not its history (every client that follows a
     * turn of another instance asks this).
     */
    void requireStored(Caller caller, String id) {
        hot.awaitWriter(); // our own writes (a delete, a hand-over) are in the store
        try {
            if (store.conversation(caller.personId(), id).isEmpty()) {
                throw ConversationException.notFound(id);
            }
        } catch (StoreException e) {
            throw ConversationException.unavailable(e);
        }
    }

    /** The running (or last) turn of a conversation held in memory here; empty for any other (for another instance's follower). */
    public Optional<AgentRun> localRun(String id) {
        return hot.get(id).flatMap(HotConversation::currentOrLastRun);
    }

    /** Stops the running turn of a conversation held here (asked by another instance); false when none runs here. */
    public boolean stopHere(String id) {
        Optional<AgentRun> run = hot.get(id).flatMap(HotConversation::running);
        run.ifPresent(r -> r.cancel("stopped by the user"));
        return run.isPresent();
    }

    static void requireStorable(String what, String text) {
        int bad = StorableText.firstBad(text);
        if (bad >= 0) {
            throw new ConversationException(ConversationException.Kind.INVALID,
                    "The " + what + " holds U+" + String.format("%04X", (int) text.charAt(bad)) + " at index " + bad + ", which cannot be stored");
        }
    }

    /** Ids are UUIDs; anything else cannot exist (and is answered like an unknown id). */
    static String validId(String id) {
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

    /**
     * The first half of a graceful stop (a rolling restart): from now on no conversation or turn starts
     * here ({@link ConversationException.Kind#STOPPING}); idle conversations are let go at once, so other
     * instances take them without waiting; running turns may finish within {@code grace}, each let go as
     * it ends. {@link #close()} then stops whatever still runs.
     *
     * @return whether every running turn finished within {@code grace}
     */
    public boolean drain(Duration grace) {
        draining = true;
        long deadline = ticker.getAsLong() + grace.toNanos();
        hot.letGoIdle("the server is stopping");
        List<AgentRun> runs = hot.running();
        if (!runs.isEmpty()) {
            log.info("stopping: waiting up to {} for {} running turns to finish", grace, runs.size());
        }
        // Looked at again after each wait: a turn that passed the check just before draining began counts too.
        while (!runs.isEmpty()) {
            if (!runs.getFirst().awaitEnd(Duration.ofNanos(Math.max(0, deadline - ticker.getAsLong())))) {
                return false;
            }
            hot.letGoIdle("the server is stopping");
            runs = hot.running();
        }
        return true;
    }

    /** Whether {@link #drain} has begun: this instance takes no new turns (its {@code /readyz} says so). */
    public boolean isDraining() {
        return draining;
    }

    void refuseWhileDraining() {
        if (draining) {
            throw new ConversationException(ConversationException.Kind.STOPPING,
                    "This server instance is stopping; send the request again (another instance takes it)");
        }
    }

    /**
     * While the database cannot write for lack of room (or a failing disk), new work is refused before anything of it
     * is kept: it would pile up in memory, never stored if the server stops first. (An unreachable database is
     * another matter: hot conversations go on, and what they write lands when it is back.)
     */
    void refuseWhileStorageFails() {
        if (writer.storageFailure().isPresent()) {
            throw new ConversationException(ConversationException.Kind.UNAVAILABLE, "The server cannot store conversations right now:"
                    + " its database cannot write (the disk is full or failing). Nothing was sent to the model; try again once"
                    + " the server has room.");
        }
    }

    /** A conversation's stored file by its SHA-256, once what is on its way to the store has been written. */
    byte[] storedFile(String id, String sha256) {
        writer.flush(timings.storeWait()); // a file attached a moment ago may still be on its way to the store
        try {
            return store.attachmentFile(id, sha256).orElseThrow(() -> new ConversationException(
                    ConversationException.Kind.UNAVAILABLE, "The attachment is not stored yet; try again shortly"));
        } catch (StoreException e) {
            throw ConversationException.unavailable(e);
        }
    }

    /**
     * Graceful shutdown: running turns are stopped and recorded as cancelled, every write is
     * flushed, and the leases are given back.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (maintenance != null) {
                maintenance.shutdownNow();
            }
        }
        changes.close();
        List<AgentRun> runs = hot.running();
        runs.forEach(run -> run.cancel("the server is shutting down"));
        for (AgentRun run : runs) {
            if (!run.awaitEnd(timings.shutdownFlush())) {
                log.warn("shutdown: a turn did not stop within {}", timings.shutdownFlush());
            }
        }
        hot.releaseAll();
    }
}
