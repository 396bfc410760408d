package dev.skillforge.server.conversation;

import dev.skillforge.server.run.AgentRun;
import dev.skillforge.server.store.ConversationRecord;
import dev.skillforge.server.store.ConversationStore;
import dev.skillforge.server.store.Lease;
import dev.skillforge.server.store.StoreException;
import dev.skillforge.server.store.StoreWriter;
import dev.skillforge.server.store.StoredEntry;
import dev.skillforge.server.store.TurnRecord;
import dev.skillforge.server.store.Write;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * The conversations this instance holds in memory, and their life: a conversation is loaded on
 * first use after its lease is taken, and leaves memory (flushing its writes, then giving the lease
 * back) when it has been idle for {@link ConversationTimings#idleEviction()}, when more than
 * {@link ConversationTimings#maxHot()} are held (least recently used first), or when another
 * instance asks for it. A copy whose lease was lost is dropped without a word to the store. At start,
 * {@link #recover()} finishes what a crash of this instance's previous life left.
 *
 * <p>A conversation is loaded or let go under its own loading lock, so a request never re-loads
 * (and re-owns) a conversation between its removal from memory and the release of its lease.
 */
final class HotConversations {

    private static final Logger log = LoggerFactory.getLogger(HotConversations.class);

    private final ConversationStore store;
    private final StoreWriter writer;
    private final String owner;
    private final ConversationTimings timings;
    private final InstantSource clock;
    /** Times the hand-over wait: nanoseconds, never set back ({@link System#nanoTime()}). */
    private final LongSupplier ticker;
    private final Map<String, HotConversation> hot = new ConcurrentHashMap<>();
    private final Map<String, ReentrantLock> loading = new ConcurrentHashMap<>();

    /** @param owner this instance's lease owner id */
    HotConversations(ConversationStore store, StoreWriter writer, String owner, ConversationTimings timings, InstantSource clock,
                     LongSupplier ticker) {
        this.store = store;
        this.writer = writer;
        this.owner = owner;
        this.timings = timings;
        this.clock = clock;
        this.ticker = ticker;
    }

    /** The conversation if it is in memory here. */
    Optional<HotConversation> get(String id) {
        return Optional.ofNullable(hot.get(id));
    }

    /** Every id held now. */
    Set<String> ids() {
        return Set.copyOf(hot.keySet());
    }

    int size() {
        return hot.size();
    }

    /** Holds a conversation this instance just created (its lease is written with it). */
    void adopt(HotConversation conversation) {
        hot.put(conversation.id(), conversation);
    }

    /** Forgets a deleted conversation. */
    void forget(HotConversation conversation) {
        hot.remove(conversation.id(), conversation);
    }

    /**
     * The conversation in memory, loading it (and taking its lease) if needed; marks it used.
     *
     * @throws ConversationException NOT_FOUND for an unknown id, BUSY when another instance holds it past the
     *                               hand-over wait, UNAVAILABLE when the store cannot be reached
     */
    HotConversation getOrLoad(String id) {
        HotConversation conversation = hot.get(id);
        if (conversation == null) {
            conversation = underLoadingLock(id, () -> {
                HotConversation existing = hot.get(id);
                if (existing != null) {
                    return existing;
                }
                HotConversation loaded = load(id);
                hot.put(id, loaded);
                return loaded;
            });
        }
        conversation.touch();
        return conversation;
    }

    private HotConversation load(String id) {
        awaitWriter(); // cold path only: what this instance wrote (a delete, the last entries before a hand-over) is in the store
        try {
            // Unknown ids are answered before any lease is taken, so probing leaves no trace.
            if (store.conversation(id).isEmpty()) {
                throw ConversationException.notFound(id);
            }
            long deadline = ticker.getAsLong() + timings.handoverWait().toNanos();
            while (true) {
                Lease lease = store.acquireLease(id, owner, clock.millis(), timings.leaseTtl().toMillis());
                if (lease instanceof Lease.Held) {
                    ConversationRecord record = store.conversation(id).orElseThrow(() -> ConversationException.notFound(id));
                    Lease.Held held = (Lease.Held) lease;
                    List<TurnRecord> turns = markInterrupted(id, store.turns(id), held.epoch());
                    return newCopy(record, store.entries(id), turns, held, () -> true);
                }
                if (ticker.getAsLong() - deadline >= 0) {
                    throw new ConversationException(ConversationException.Kind.BUSY,
                            "This conversation is in use on another server instance; try again when its turn has ended");
                }
                pause(Duration.ofMillis(100));
            }
        } catch (StoreException e) {
            throw ConversationException.unavailable(e);
        }
    }

    /**
     * We hold the lease, so a turn still marked running was cut off by a crash: say so, never show it complete.
     *
     * @param epoch the lease epoch the marks are written under ({@link Write#UNFENCED} in recovery, where no lease is taken)
     * @return the turns with those marked interrupted
     */
    private List<TurnRecord> markInterrupted(String id, List<TurnRecord> stored, long epoch) {
        List<TurnRecord> turns = new ArrayList<>(stored);
        for (int i = 0; i < turns.size(); i++) {
            TurnRecord turn = turns.get(i);
            if (TurnRecord.RUNNING.equals(turn.status())) {
                TurnRecord interrupted = new TurnRecord(turn.conversationId(), turn.turn(), TurnRecord.INTERRUPTED,
                        turn.startedAtMillis(), clock.millis(), "{\"status\":\"interrupted\"}");
                turns.set(i, interrupted);
                writer.submit(new Write.PutTurn(interrupted, epoch));
                log.warn("conversation {}: turn {} was interrupted (the server stopped during it)", id, turn.turn());
            }
        }
        return turns;
    }

    /**
     * Finishes what a crash of this instance's previous life (same owner id: same data folder) left:
     * the turns it was running are marked interrupted and its leases are given back, so a restart shows
     * them as cut at once, and any instance can go on with those conversations without waiting for the
     * dead leases to expire. Call once at start, before serving. Store failures are logged and leave the
     * leases to expire; they never stop the start.
     *
     * @return how many conversations were recovered
     */
    int recover() {
        try {
            Set<String> leftovers = store.leasesHeldBy(owner);
            for (String id : leftovers) {
                markInterrupted(id, store.turns(id), Write.UNFENCED);
            }
            if (leftovers.isEmpty() || !writer.flush(timings.shutdownFlush())) {
                return 0;
            }
            for (String id : leftovers) {
                store.releaseLease(id, owner);
            }
            log.info("recovered {} conversations left by the previous run of this server", leftovers.size());
            return leftovers.size();
        } catch (StoreException e) {
            log.warn("recovery: the store failed ({}); the previous run's leases are left to expire", e.getMessage());
            return 0;
        }
    }

    /** Bounds memory: idle conversations leave (and give their lease back) after a while, and the least recently used past the cap. */
    void evictIdle() {
        long now = clock.millis();
        List<HotConversation> oldestFirst = hot.values().stream().sorted(Comparator.comparingLong(HotConversation::lastUsedMillis)).toList();
        int excess = oldestFirst.size() - timings.maxHot();
        for (HotConversation conversation : oldestFirst) {
            if (now - conversation.lastUsedMillis() <= timings.idleEviction().toMillis() && excess <= 0) {
                break; // everything after this one is newer
            }
            if (letGo(conversation, "idle")) {
                excess--;
            }
        }
    }

    /**
     * Drops a conversation from memory unless a turn runs on it (then another instance asking for it
     * gets "busy"), flushes its writes and gives the lease back, so whoever takes it next loads the
     * whole history.
     *
     * @return whether it left memory
     */
    boolean letGo(HotConversation conversation, String why) {
        return underLoadingLock(conversation.id(), () -> {
            if (!conversation.releaseIfIdle()) {
                return false;
            }
            hot.remove(conversation.id(), conversation);
            if (writer.flush(timings.handoverFlush())) {
                store.releaseLease(conversation.id(), owner);
                log.debug("conversation {}: let go ({})", conversation.id(), why);
            }
            return true;
        });
    }

    /**
     * The store refused writes of {@code id} made under {@code epoch}: if that is this instance's copy,
     * it is fenced (its turn stopped) and dropped; a newer copy (the lease taken again since) stays.
     */
    void fenced(String id, long epoch) {
        HotConversation conversation = hot.get(id);
        if (conversation != null && conversation.epoch() == epoch) {
            lost(conversation, "the store refused its writes: another instance holds the conversation now");
        }
    }

    /** The lease of this copy is gone ({@code why}): stop its turn (the client is told), and never use the copy again. */
    void lost(HotConversation conversation, String why) {
        boolean wasRunning = conversation.fence();
        hot.remove(conversation.id(), conversation);
        log.warn("conversation {}: lease (epoch {}) lost, {}; dropped from memory{}", conversation.id(), conversation.epoch(), why,
                wasRunning ? ", its running turn stopped" : "");
    }

    /**
     * A copy in memory under {@code lease}, its writes to the writer.
     *
     * @param inStore whether its creation has been written to the store
     */
    HotConversation newCopy(ConversationRecord record, List<StoredEntry> entries, List<TurnRecord> turns, Lease.Held lease,
                            BooleanSupplier inStore) {
        return new HotConversation(record, entries, turns, lease, this::stillHeld, inStore, writer::submitAll, clock);
    }

    /**
     * Renews one lease now; if it was taken over, the copy is fenced and dropped. A store that fails, or that does not
     * have the conversation yet (its creation waits in the writer), leaves the question open (true).
     */
    private boolean stillHeld(HotConversation conversation) {
        long now = clock.millis();
        boolean stored = conversation.stored(); // before the renewal: a creation written after it began is not seen by it
        ConversationStore.Renewal renewal;
        try {
            renewal = store.renewLeases(owner, Set.of(conversation.id()), now, timings.leaseTtl().toMillis());
        } catch (StoreException e) {
            log.warn("conversation {}: could not make sure of its lease ({}); its writes stay fenced by epoch", conversation.id(), e.getMessage());
            return true;
        }
        return switch (LeaseFinding.of(renewal, conversation.id(), stored)) {
            case HELD -> {
                conversation.leaseRenewedUntil(now + timings.leaseTtl().toMillis());
                yield true;
            }
            case NOT_STORED_YET -> true;
            case LOST -> {
                lost(conversation, LeaseFinding.whyLost(renewal, conversation.id()));
                yield false;
            }
        };
    }

    /** Lets every idle conversation go (each flushed, then its lease given back); running ones stay. */
    void letGoIdle(String why) {
        hot.values().forEach(conversation -> letGo(conversation, why));
    }

    /** The turns running now. */
    List<AgentRun> running() {
        List<AgentRun> runs = new ArrayList<>();
        hot.values().forEach(conversation -> conversation.running().ifPresent(runs::add));
        return runs;
    }

    /** Gives every lease back, once every write is in the store; on shutdown. */
    void releaseAll() {
        if (!writer.flush(timings.shutdownFlush())) {
            log.warn("shutdown: {} writes could not be stored; leases are left to expire", writer.pending());
            return; // releasing now would let another instance load a conversation whose last writes are still queued here
        }
        try {
            for (String id : hot.keySet()) {
                store.releaseLease(id, owner);
            }
        } catch (StoreException e) {
            log.warn("shutdown: leases are left to expire ({})", e.getMessage());
        }
    }

    /** Waits for the writer, so a read sees this instance's own writes. */
    void awaitWriter() {
        if (!writer.flush(timings.storeWait())) {
            throw new ConversationException(ConversationException.Kind.UNAVAILABLE,
                    "The conversation store is unavailable right now; try again shortly");
        }
    }

    private <T> T underLoadingLock(String id, java.util.function.Supplier<T> action) {
        ReentrantLock lock = loading.computeIfAbsent(id, k -> new ReentrantLock());
        lock.lock();
        try {
            return action.get();
        } finally {
            lock.unlock();
            loading.remove(id, lock);
        }
    }

    private static void pause(Duration duration) {
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConversationException(ConversationException.Kind.UNAVAILABLE, "interrupted");
        }
    }
}
