package dev.skillforge.server.conversation;

import dev.skillforge.core.transcript.Entry;
import dev.skillforge.core.transcript.ProviderReplay;
import dev.skillforge.core.transcript.Transcript;
import dev.skillforge.server.run.AgentRun;
import dev.skillforge.server.store.ConversationRecord;
import dev.skillforge.server.store.StoredEntry;
import dev.skillforge.server.store.TurnRecord;
import dev.skillforge.server.store.Write;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A conversation held in memory by the instance that holds its lease: turns on it are served from
 * here without a database round trip, and every change goes to the background writer in order.
 * Guarded by its own monitor.
 */
final class HotConversation {

    /** The stored kind of a {@link Entry.ContextCut}; its replay columns hold {@value #KEEP_FROM} and the index it keeps from. */
    static final String CONTEXT = "context";
    static final String KEEP_FROM = "keep-from";

    final String id;
    final Transcript transcript;
    final List<TurnRecord> turns;
    /** The entries as stored (sharing their strings with the transcript), for the turn view. */
    final List<StoredEntry> stored;
    /** Event ids keep growing across the conversation's turns, so {@code Last-Event-ID} is unambiguous. */
    final AtomicLong eventIds = new AtomicLong();
    /** Where writes go: each list reaches the store in one transaction. */
    private final Consumer<List<Write>> writes;
    /** Writes held back while {@link #inOneTransaction} runs, else {@code null}. */
    private volatile List<Write> held;
    ConversationRecord record;
    int nextSeq;
    int currentTurn;
    AgentRun running;
    TurnRecorder runningRecorder;
    AgentRun lastRun;
    /** Until when the lease is known to be ours (renewed in the background). */
    volatile long leaseConfirmedUntilMillis;
    volatile long lastUsedMillis = System.currentTimeMillis();
    /** Set when the lease is given up: no new turn may start here. */
    boolean released;

    HotConversation(ConversationRecord record, List<StoredEntry> stored, List<TurnRecord> turns, Consumer<List<Write>> writes) {
        this.id = record.id();
        this.record = record;
        this.writes = writes;
        this.turns = new ArrayList<>(turns);
        this.stored = new ArrayList<>(stored);
        this.nextSeq = stored.isEmpty() ? 0 : stored.getLast().seq() + 1;
        this.currentTurn = turns.isEmpty() ? -1 : turns.getLast().turn();
        this.transcript = new Transcript(stored.stream().map(HotConversation::entryOf).toList(), this::recordAppend);
    }

    boolean isRunning() {
        return running != null;
    }

    /** Called by the transcript under its lock, in append order: the entry gets the next sequence number. */
    private void recordAppend(Entry entry) {
        ProviderReplay replay = switch (entry) {
            case Entry.Assistant assistant -> assistant.replay();
            case Entry.ContextCut cut -> new ProviderReplay(KEEP_FROM, Integer.toString(cut.keepFrom()));
            default -> null;
        };
        StoredEntry appended = new StoredEntry(id, nextSeq++, currentTurn, kindOf(entry), entry.content(),
                replay == null ? null : replay.format(), replay == null ? null : replay.data(), System.currentTimeMillis());
        stored.add(appended);
        write(new Write.AppendEntry(appended));
    }

    /** Sends one change of this conversation to the store, in order with the others. */
    void write(Write change) {
        List<Write> batch = held;
        if (batch != null) {
            batch.add(change);
        } else {
            writes.accept(List.of(change));
        }
    }

    /**
     * Runs {@code changes} (under this conversation's monitor) so that every write it makes reaches
     * the store in one transaction: a crash never leaves half of them, e.g. a turn without its message.
     */
    void inOneTransaction(Runnable changes) {
        List<Write> batch = new ArrayList<>();
        held = batch;
        try {
            changes.run();
        } finally {
            held = null;
            if (!batch.isEmpty()) {
                writes.accept(batch);
            }
        }
    }

    static String kindOf(Entry entry) {
        return switch (entry) {
            case Entry.User u -> "user";
            case Entry.Assistant a -> "assistant";
            case Entry.Tool t -> "tool";
            case Entry.ContextCut c -> CONTEXT;
        };
    }

    /**
     * The seq a stored context cut keeps from: {@code 0 <= keepFrom < seq} (a cut keeps entries before
     * itself), or -1 when its replay columns do not say so (not written by {@link #recordAppend}).
     */
    static int keepFromOf(StoredEntry stored) {
        if (!KEEP_FROM.equals(stored.replayFormat()) || stored.replayData() == null) {
            return -1;
        }
        try {
            int keepFrom = Integer.parseInt(stored.replayData());
            return keepFrom >= 0 && keepFrom < stored.seq() ? keepFrom : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    static Entry entryOf(StoredEntry stored) {
        return switch (stored.kind()) {
            case "user" -> new Entry.User(stored.content());
            case "tool" -> new Entry.Tool(stored.content());
            case CONTEXT -> {
                int keepFrom = keepFromOf(stored);
                if (keepFrom < 0) {
                    throw new IllegalStateException("context entry " + stored.seq() + " of conversation " + stored.conversationId()
                            + " in the store keeps from no entry before it (replay " + stored.replayFormat() + " " + stored.replayData() + ")");
                }
                yield new Entry.ContextCut(stored.content(), keepFrom);
            }
            case "assistant" -> new Entry.Assistant(stored.content(),
                    stored.replayFormat() == null ? null : new ProviderReplay(stored.replayFormat(), stored.replayData()));
            default -> throw new IllegalStateException("unknown entry kind in the store: " + stored.kind());
        };
    }
}
