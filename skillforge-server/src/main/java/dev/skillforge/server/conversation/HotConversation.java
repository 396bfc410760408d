package dev.skillforge.server.conversation;

import dev.skillforge.core.agent.AgentLoop;
import dev.skillforge.core.agent.CommandRunner;
import dev.skillforge.core.agent.EventSink;
import dev.skillforge.core.transcript.Attachment;
import dev.skillforge.core.transcript.Entry;
import dev.skillforge.core.transcript.ProviderReplay;
import dev.skillforge.core.transcript.Transcript;
import dev.skillforge.server.document.AttachedDocument;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.run.AgentRun;
import dev.skillforge.server.run.RunEventLog;
import dev.skillforge.server.store.AttachmentFile;
import dev.skillforge.server.store.ConversationRecord;
import dev.skillforge.server.store.Lease;
import dev.skillforge.server.store.StoredEntry;
import dev.skillforge.server.store.TurnRecord;
import dev.skillforge.server.store.Write;

import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * A conversation held in memory by the instance that holds its lease: turns on it are served from
 * here without a database round trip, and every change goes to the background writer in order.
 *
 * <p><b>One lock.</b> Everything here, the transcript included, is guarded by this object's
 * monitor: the transcript is built with this object as its lock, so an entry the run thread appends
 * is recorded (sequence number, stored copy, write) under the same monitor that a request takes to
 * read a {@link #snapshot()} or to start a turn. No other class locks anything of a conversation.
 */
final class HotConversation {

    /** The stored kind of a {@link Entry.ContextCut}; its replay columns hold {@value #KEEP_FROM} and the index it keeps from. */
    static final String CONTEXT = "context";
    static final String KEEP_FROM = "keep-from";

    private final String id;
    /** The epoch of the lease this copy was loaded (or created) under: every write carries it, and the store refuses it once stale. */
    private final long epoch;
    /** Until when (this instance's clock) the lease is known to be held: no other instance can have taken it before. */
    private volatile long leaseKnownUntilMillis;
    private final LeaseCheck leaseCheck;
    /** Whether the store has this conversation: its creation was written (a copy loaded from the store always). */
    private final BooleanSupplier inStore;
    private final InstantSource clock;
    /** Where writes go: each list reaches the store in one transaction. */
    private final Consumer<List<Write>> writes;
    private final Transcript transcript;
    private final List<TurnRecord> turns;
    /** The entries as stored (sharing their strings with the transcript), for the turn view. */
    private final List<StoredEntry> stored;
    /** Event ids keep growing across the conversation's turns, so {@code Last-Event-ID} is unambiguous. */
    private final AtomicLong eventIds = new AtomicLong();
    /** The files the user entry being appended brings (set by {@link #startTurn} just before it appends). */
    private List<AttachmentFile> newFiles = List.of();
    /** Writes held back while {@link #inOneTransaction} runs, else {@code null}. */
    private List<Write> held;
    private ConversationRecord record;
    private int nextSeq;
    private int currentTurn;
    private AgentRun running;
    private TurnRecorder runningRecorder;
    private AgentRun lastRun;
    /** Set when the lease is given up or the conversation deleted: no new turn may start from this copy. */
    private boolean released;
    private volatile long lastUsedMillis;

    /**
     * @param stored the entries as stored, in order
     * @param turns  the turns as stored (a turn cut off by a crash already marked interrupted)
     * @param lease  the lease held for it: its epoch, and until when it is known to be held
     * @param check  makes sure the lease is still held when a turn ends after that time
     * @param inStore whether the conversation's creation has been written to the store
     * @param writes where changes go, in order; each list in one transaction
     */
    HotConversation(ConversationRecord record, List<StoredEntry> stored, List<TurnRecord> turns, Lease.Held lease, LeaseCheck check,
                    BooleanSupplier inStore, Consumer<List<Write>> writes, InstantSource clock) {
        this.id = record.id();
        this.epoch = lease.epoch();
        this.leaseKnownUntilMillis = lease.expiresAtMillis();
        this.leaseCheck = check;
        this.inStore = inStore;
        this.record = record;
        this.writes = writes;
        this.clock = clock;
        this.turns = new ArrayList<>(turns);
        this.stored = new ArrayList<>(stored);
        this.nextSeq = stored.isEmpty() ? 0 : stored.getLast().seq() + 1;
        this.currentTurn = Math.max(turns.isEmpty() ? -1 : turns.getLast().turn(), stored.isEmpty() ? -1 : stored.getLast().turn());
        this.transcript = new Transcript(stored.stream().map(HotConversation::entryOf).toList(), this::recordAppend, this);
        this.lastUsedMillis = clock.millis();
    }

    String id() {
        return id;
    }

    long epoch() {
        return epoch;
    }

    /**
     * Whether the store has this conversation. Until it has, nobody else can hold its lease (a new id is leased with
     * its creation), so a lease that cannot be found is on its way, not lost.
     */
    boolean stored() {
        return inStore.getAsBoolean();
    }

    /** A renewal confirmed the lease until {@code millis}. */
    void leaseRenewedUntil(long millis) {
        leaseKnownUntilMillis = Math.max(leaseKnownUntilMillis, millis);
    }

    /** Makes sure, with a database round trip, that this instance still holds a conversation's lease. */
    @FunctionalInterface
    interface LeaseCheck {
        /** @return whether it does; when it does not, the copy has been {@link #fence() fenced} */
        boolean stillHeld(HotConversation conversation);
    }

    /** The transcript, appended by the running turn only (and by {@link #startTurn}); guarded by this object. */
    Transcript transcript() {
        return transcript;
    }

    synchronized ConversationRecord record() {
        return record;
    }

    synchronized boolean isRunning() {
        return running != null;
    }

    synchronized boolean isReleased() {
        return released;
    }

    /** Marks the conversation used now (idle ones leave memory first). */
    void touch() {
        lastUsedMillis = clock.millis();
    }

    long lastUsedMillis() {
        return lastUsedMillis;
    }

    /** Gives this copy up unless a turn runs on it. @return whether it was released */
    synchronized boolean releaseIfIdle() {
        if (running != null) {
            return false;
        }
        released = true;
        return true;
    }

    /**
     * The lease this copy was loaded under is gone (another instance took the conversation over while
     * this one could not renew): no new turn starts from this copy, and a running turn is stopped with
     * an error that says so; whatever it still writes is refused by the store.
     *
     * @return whether a turn was running
     */
    synchronized boolean fence() {
        released = true;
        if (running == null) {
            return false;
        }
        running.loseLease();
        return true;
    }

    synchronized ConversationRecord rename(String title) {
        record = record.withTitle(title, record.updatedAtMillis()); // a new name is not new activity: the list keeps its order
        write(new Write.SetTitle(id, title, record.updatedAtMillis(), epoch));
        return record;
    }

    /**
     * Releases this copy and deletes the conversation from the store.
     *
     * @throws ConversationException BUSY while a turn runs
     */
    synchronized void delete() {
        if (running != null) {
            throw new ConversationException(ConversationException.Kind.BUSY, "A turn is running; stop it before deleting the conversation");
        }
        released = true;
        write(new Write.DeleteConversation(id, epoch));
    }

    /**
     * Runs {@code action} while no turn runs here, and none can start until it returns.
     *
     * @throws ConversationException BUSY while a turn runs
     */
    synchronized void whileIdle(Runnable action) {
        if (running != null) {
            throw new ConversationException(ConversationException.Kind.BUSY, "A turn is running; stop it or wait for its end first");
        }
        action.run();
    }

    /**
     * Starts a turn with the person's message: the turn's record, the title (on the first turn) and the
     * message reach the store in one transaction; the loop then runs on its own thread.
     *
     * @param documents the files attached to the message, text extracted: stored with it, in the same transaction
     * @param loop     the loop of the conversation's provider
     * @param commands runs the turn's commands, in this conversation's workspace
     * @param observer sees every event first (the metrics)
     * @param title    the title for a conversation that has none yet, from the message
     * @return the run, or empty when this copy was released meanwhile (the caller loads the conversation again)
     * @throws ConversationException BUSY when a turn is running
     */
    synchronized Optional<AgentRun> startTurn(String content, List<AttachedDocument> documents, String title, AgentLoop loop,
                                              CommandRunner commands, EventSink observer) {
        if (released) {
            return Optional.empty();
        }
        if (running != null) {
            throw new ConversationException(ConversationException.Kind.BUSY, "A turn of this conversation is running; wait for it or stop it");
        }
        long now = clock.millis();
        int turn = ++currentTurn;
        eventIds.updateAndGet(v -> Math.max(v, (long) turn << 32)); // ids stay increasing across reloads
        TurnRecord started = new TurnRecord(id, turn, TurnRecord.RUNNING, now, null, null);
        turns.add(started);
        inOneTransaction(() -> {
            write(new Write.PutTurn(started, epoch));
            write(new Write.SelectBranch(id, now, epoch)); // the branch a turn is sent on is the one its thread shows
            if (record.title().isEmpty()) {
                record = record.withTitle(title, now);
                write(new Write.SetTitle(id, title, now, epoch));
            }
            newFiles = documents.stream().map(d -> new AttachmentFile(d.attachment().sha256(), d.data())).toList();
            transcript.append(new Entry.User(content, documents.stream().map(AttachedDocument::attachment).toList()));
        });
        TurnRecorder recorder = new TurnRecorder();
        runningRecorder = recorder;
        running = AgentRun.start(loop, transcript, record.systemPrompt(), record.cacheKey(), commands,
                new RunEventLog(eventIds::incrementAndGet), event -> {
            recorder.accept(event);
            observer.accept(event);
        }, last -> finishTurn(started, recorder));
        return Optional.of(running);
    }

    private synchronized void finishTurn(TurnRecord started, TurnRecorder recorder) {
        // Past the time the lease is known to be held (this instance was paused or cut off), make sure of it
        // before the client is told the turn is done: if another instance took over, the turn ends with an error.
        if (clock.millis() >= leaseKnownUntilMillis && !released) {
            leaseCheck.stillHeld(this);
        }
        var summary = recorder.summary();
        TurnRecord ended = new TurnRecord(id, started.turn(), summary.path("status").asText("failed"), started.startedAtMillis(),
                clock.millis(), Json.write(summary));
        turns.set(turns.indexOf(started), ended);
        write(new Write.PutTurn(ended, epoch));
        lastRun = running;
        running = null;
        runningRecorder = null;
    }

    synchronized Optional<AgentRun> running() {
        return Optional.ofNullable(running);
    }

    /** The running turn, or else the last one run here since this copy was loaded. */
    synchronized Optional<AgentRun> currentOrLastRun() {
        return Optional.ofNullable(running != null ? running : lastRun);
    }

    /** The conversation at this moment, consistent: no entry half-recorded. */
    synchronized ConversationSnapshot snapshot() {
        return new ConversationSnapshot(record, List.copyOf(stored), List.copyOf(turns), running != null,
                runningRecorder == null ? null : runningRecorder.summary());
    }

    /** Called by the transcript under this object's monitor, in append order: the entry gets the next sequence number. */
    private void recordAppend(Entry entry) {
        ProviderReplay replay = switch (entry) {
            case Entry.Assistant assistant -> assistant.replay();
            case Entry.ContextCut cut -> new ProviderReplay(KEEP_FROM, Integer.toString(cut.keepFrom()));
            default -> null;
        };
        List<Attachment> attachments = entry instanceof Entry.User user ? user.attachments() : List.of();
        StoredEntry appended = new StoredEntry(id, nextSeq++, currentTurn, kindOf(entry), entry.content(),
                replay == null ? null : replay.format(), replay == null ? null : replay.data(), clock.millis(), attachments);
        stored.add(appended);
        List<AttachmentFile> files = entry instanceof Entry.User ? newFiles : List.of();
        newFiles = List.of();
        write(new Write.AppendEntry(appended, files, epoch));
    }

    /** Sends one change of this conversation to the store, in order with the others. */
    private void write(Write change) {
        if (held != null) {
            held.add(change);
        } else {
            writes.accept(List.of(change));
        }
    }

    /** Runs {@code changes} so that every write it makes reaches the store in one transaction: a crash never leaves half of them. */
    private void inOneTransaction(Runnable changes) {
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
            case "user" -> new Entry.User(stored.content(), stored.attachments());
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
