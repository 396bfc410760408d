package dev.skillforge.server.conversation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.context.ContextView;
import dev.skillforge.core.transcript.Attachment;
import dev.skillforge.core.transcript.Entry;
import dev.skillforge.core.transcript.StorableText;
import dev.skillforge.server.document.AttachedDocument;
import dev.skillforge.server.exec.Workspace;
import dev.skillforge.server.people.Caller;
import dev.skillforge.server.run.AgentRun;
import dev.skillforge.server.run.RunEventLog;
import dev.skillforge.server.search.Highlight;
import dev.skillforge.server.search.SearchQuery;
import dev.skillforge.server.search.Snippet;
import dev.skillforge.server.search.Snippets;
import dev.skillforge.server.store.AttachmentFile;
import dev.skillforge.server.store.BranchRecord;
import dev.skillforge.server.store.ConversationRecord;
import dev.skillforge.server.store.ConversationStore;
import dev.skillforge.server.store.FoundConversation;
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
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Conversations by id, and the turns on them. Hot conversations (held in memory under this
 * instance's lease, {@link HotConversations}) serve turns with no database round trip: every change
 * goes to the {@link StoreWriter}, in order. A cold conversation is loaded once, after taking its
 * lease, which is also what keeps two instances from interleaving one conversation
 * ({@link LeaseKeeper}). Runs belong to the server, not to a connection: a client follows a run's
 * {@link RunEventLog} and may leave and come back.
 *
 * <p>Time comes from the {@link InstantSource} given, so lease expiry and idle eviction can be tested
 * without waiting; {@link #maintain()} is the periodic work that {@link #startMaintenance()} schedules.
 */
public final class ConversationService implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ConversationService.class);

    public static final int MAX_TITLE_LENGTH = 200;
    /** Automatic titles: the first line of the first message, cut here. */
    static final int AUTOMATIC_TITLE_LENGTH = 60;

    private final StoreWriter writer;
    private final String systemPrompt;
    private final ConversationModels models;
    private final ConversationStore store;
    private final ConversationCommands commands;
    private final Budgets budgets;
    private final PersonalDefaults defaults;
    private final ConversationTimings timings;
    private final InstantSource clock;
    private final String instanceId;
    private final HotConversations hot;
    private final LeaseKeeper leases;
    private final ThreadBranches threads;
    private final ConversationChanges changes = new ConversationChanges();
    private ScheduledExecutorService maintenance;
    /** Set by {@link #drain}: no new conversation or turn starts here. */
    private volatile boolean draining;

    /** A service with its own random instance id, no budgets, the default timings and the system clock (tests). */
    public ConversationService(ConversationStore store, StoreWriter writer, String systemPrompt, ConversationModels models,
                               ConversationCommands commands) {
        this(store, writer, systemPrompt, models, commands, Budgets.NONE, PersonalDefaults.NONE, UUID.randomUUID().toString(),
                ConversationTimings.DEFAULTS, InstantSource.system());
    }

    /**
     * @param systemPrompt the system prompt new conversations are fixed to (it is stored with each)
     * @param commands     where each conversation's commands run
     * @param budgets      what each person may still spend: checked before a turn, told what it cost after
     * @param defaults     what each person chose for the conversations they start (provider, instructions)
     * @param instanceId   this server's lease owner id ({@link InstanceIdentity}): the same across restarts on one data folder
     * @param clock        the time for records, leases and idle eviction
     */
    public ConversationService(ConversationStore store, StoreWriter writer, String systemPrompt, ConversationModels models,
                               ConversationCommands commands, Budgets budgets, PersonalDefaults defaults, String instanceId,
                               ConversationTimings timings, InstantSource clock) {
        this.store = store;
        this.writer = writer;
        this.systemPrompt = systemPrompt;
        this.models = models;
        this.commands = commands;
        this.budgets = budgets;
        this.defaults = defaults;
        this.timings = timings;
        this.clock = clock;
        this.instanceId = instanceId;
        this.hot = new HotConversations(store, writer, instanceId, timings, clock);
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

    /** Creates a conversation of {@code caller}: it is hot here at once and reaches the database in the background. */
    public ConversationRecord create(Caller caller, String title) {
        return create(caller, title, null, null);
    }

    /**
     * Creates a conversation of {@code caller} fixed to a provider and its model ({@code null}: the caller's default, else
     * the server's), with the system prompt of this server and the caller's own instructions: none of them changes
     * afterwards.
     */
    public ConversationRecord create(Caller caller, String title, String provider, String model) {
        refuseWhileDraining();
        refuseWhileStorageFails();
        String validTitle = title == null ? "" : validTitle(title);
        PersonalDefaults.Start start = defaults.start(caller.personId());
        ConversationModels.Choice choice = choose(provider, model, start);
        long now = clock.millis();
        String id = UUID.randomUUID().toString(); // 122 random bits from SecureRandom
        ConversationRecord record = new ConversationRecord(id, validTitle, start.systemPrompt(systemPrompt), choice.provider(),
                choice.model(), now, now, caller.personId());
        // A new random id cannot be leased by anyone else yet: the lease is written with the conversation.
        long created = writer.submit(new Write.CreateConversation(record, instanceId, now + timings.leaseTtl().toMillis()));
        hot.adopt(hot.newCopy(record, List.of(), List.of(),
                new Lease.Held(id, Write.CreateConversation.LEASE_EPOCH, now + timings.leaseTtl().toMillis()), () -> writer.applied(created)));
        // Other instances know a conversation only from the database: store it (with its lease) before
        // the client has its id, or a request sent to another instance at once is answered 404.
        // Bounded, and not a turn: during an outage the conversation still starts here and is written later.
        writer.flush(timings.storeWait());
        changes.publish("created", record);
        return record;
    }

    /** The provider asked for; else the person's default while it is still configured; else the server's. */
    private ConversationModels.Choice choose(String provider, String model, PersonalDefaults.Start start) {
        if (provider != null || model != null || start.provider().isEmpty()) {
            return models.choose(provider, model);
        }
        try {
            return models.choose(start.provider().get(), null);
        } catch (ConversationException e) {
            log.info("the default provider '{}' a person chose is not configured any more: the server's default is used", start.provider().get());
            return models.choose(null, null);
        }
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
     * The caller's conversations, one row per thread (its branch selected last), most recently active first. Waits briefly
     * for the writer so a new one is listed.
     */
    public List<ConversationRecord> list(Caller caller, int limit, int offset) {
        writer.flush(timings.storeWait());
        try {
            return store.conversations(caller.personId(), limit, offset);
        } catch (StoreException e) {
            throw ConversationException.unavailable(e);
        }
    }

    /**
     * The caller's conversations that have every term of {@code query} ({@link ConversationStore#search}), each with
     * where: the title's matches and a few passages of its texts with theirs. Waits briefly for the writer, so the
     * newest messages are found.
     */
    public List<SearchResult> search(Caller caller, SearchQuery query, int limit) {
        writer.flush(timings.storeWait());
        List<FoundConversation> found;
        try {
            found = store.search(caller.personId(), query, limit);
        } catch (StoreException e) {
            throw ConversationException.unavailable(e);
        }
        return found.stream().map(f -> new SearchResult(f.record(), Snippets.inTitle(query, f.record().title()),
                Snippets.of(query, f.sources()))).toList();
    }

    /** A conversation a search found, and where: the matches in its title, and passages of its texts. */
    public record SearchResult(ConversationRecord record, List<Highlight> titleMatches, List<Snippet> snippets) {
    }

    /**
     * Forks conversation {@code id} before turn {@code beforeTurn}: a new conversation holding its entries and
     * turns before that one, exactly as stored, with its system prompt, provider and model; the original stays as
     * it was. The fork's next message is then turn {@code beforeTurn}, so its first request is the shared
     * prefix plus that message, a byte-exact extension the provider's cache still serves: the fork's key routes
     * where the original's requests went ({@link ConversationRecord#cacheKey()}), and the prefix guard checks
     * the request against the shared prefix. Editing a message is a fork before its turn; regenerating an answer,
     * a fork before the last turn. The fork is a branch of the original's thread, and the one it shows from now on.
     *
     * @throws ConversationException INVALID for a turn the conversation does not have, BUSY while that turn or an
     *                               earlier one is still running
     */
    public ConversationRecord fork(Caller caller, String id, int beforeTurn) {
        refuseWhileStorageFails();
        ConversationSnapshot original = owned(caller, id).snapshot();
        int turnCount = original.turns().isEmpty() ? 0 : original.turns().getLast().turn() + 1;
        if (beforeTurn < 0 || beforeTurn > turnCount) {
            throw new ConversationException(ConversationException.Kind.INVALID,
                    "beforeTurn must be a turn of the conversation, from 0 to " + turnCount + ", not " + beforeTurn);
        }
        List<TurnRecord> keptTurns = original.turns().stream().filter(t -> t.turn() < beforeTurn).toList();
        if (keptTurns.stream().anyMatch(t -> t.status().equals("running"))) {
            throw new ConversationException(ConversationException.Kind.BUSY, "Turn " + keptTurns.getLast().turn()
                    + " is still running: stop it or wait for its end before editing an earlier message");
        }
        ConversationRecord from = original.record();
        long now = clock.millis();
        String forkId = UUID.randomUUID().toString();
        String root = from.cacheKey().contains("/") ? from.cacheKey().substring(0, from.cacheKey().indexOf('/')) : from.cacheKey();
        ConversationRecord fork = new ConversationRecord(forkId, from.title(), from.systemPrompt(), from.provider(), from.model(),
                now, now, ConversationRecord.Branch.forkOf(from, beforeTurn), root + "/" + forkId, from.owner());
        List<StoredEntry> entries = original.entries().stream().filter(e -> e.turn() < beforeTurn)
                .map(e -> new StoredEntry(forkId, e.seq(), e.turn(), e.kind(), e.content(), e.replayFormat(), e.replayData(),
                        e.createdAtMillis(), e.attachments()))
                .toList();
        List<TurnRecord> turns = keptTurns.stream()
                .map(t -> new TurnRecord(forkId, t.turn(), t.status(), t.startedAtMillis(), t.endedAtMillis(), t.summaryJson()))
                .toList();
        List<Write> writes = new ArrayList<>();
        writes.add(new Write.CreateConversation(fork, instanceId, now + timings.leaseTtl().toMillis()));
        Set<String> copiedFiles = new HashSet<>();
        for (StoredEntry entry : entries) {
            // Files are stored per conversation: the fork gets its own copy of each, with the first entry that uses it.
            List<AttachmentFile> files = new ArrayList<>();
            for (Attachment attachment : entry.attachments()) {
                if (copiedFiles.add(attachment.sha256())) {
                    files.add(new AttachmentFile(attachment.sha256(), storedFile(from.id(), attachment.sha256())));
                }
            }
            writes.add(new Write.AppendEntry(entry, files));
        }
        turns.forEach(turn -> writes.add(new Write.PutTurn(turn)));
        long created = writer.submitAll(writes); // one transaction: a fork is there whole or not at all
        commands.forked(from.owner(), from.id(), forkId);
        HotConversation copy = hot.newCopy(fork, entries, turns,
                new Lease.Held(forkId, Write.CreateConversation.LEASE_EPOCH, now + timings.leaseTtl().toMillis()), () -> writer.applied(created));
        hot.adopt(copy);
        ConversationModels.Choice choice = new ConversationModels.Choice(fork.provider(), fork.model());
        models.expectPrefix(choice, new ModelCall(fork.systemPrompt(), ContextView.visible(entries.stream().map(HotConversation::entryOf).toList()), fork.cacheKey()));
        writer.flush(timings.storeWait());
        changes.publish("created", fork);
        return fork;
    }

    /** How many conversations the caller has. */
    public long count(Caller caller) {
        try {
            return store.count(caller.personId());
        } catch (StoreException e) {
            throw ConversationException.unavailable(e);
        }
    }

    /** Whether a turn of conversation {@code id} (one the caller has already been given) runs here. */
    public boolean isRunning(String id) {
        return hot.get(id).map(HotConversation::isRunning).orElse(false);
    }

    /**
     * What {@code GET /api/conversations/{id}} answers: the snapshot, its costs priced as the conversation's model is, and
     * its {@code branches}: where other versions of its turns are ({@link ThreadBranches#json}).
     */
    public ObjectNode snapshotJson(Caller caller, String id) {
        ConversationSnapshot snapshot = snapshot(caller, id);
        ConversationRecord record = snapshot.record();
        ObjectNode json = snapshot.toJson(models.prices(new ConversationModels.Choice(record.provider(), record.model())).orElse(null));
        json.set("branches", threads.json(snapshot));
        return json;
    }

    /**
     * Makes branch {@code id} the one its thread shows: the list's row of the thread opens it from now on. Written in the
     * background; nothing of the conversation is loaded.
     *
     * @throws ConversationException NOT_FOUND for an unknown id, or another person's
     */
    public ConversationRecord select(Caller caller, String id) {
        Optional<HotConversation> held = hot.get(validId(id));
        ConversationRecord record;
        if (held.isPresent() && held.get().record().owner().equals(caller.personId())) {
            record = held.get().record();
        } else {
            hot.awaitWriter(); // our own writes (a create, a delete) are in the store
            try {
                record = store.conversation(caller.personId(), id).orElseThrow(() -> ConversationException.notFound(id));
            } catch (StoreException e) {
                throw ConversationException.unavailable(e);
            }
        }
        writer.submit(new Write.SelectBranch(id, clock.millis()));
        return record;
    }

    /** A conversation of the caller as the page shows it: its entries verbatim and its turns. */
    public ConversationSnapshot snapshot(Caller caller, String id) {
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
     * The conversation's record (its provider, model, title…), loading the conversation here if needed.
     *
     * @throws ConversationException NOT_FOUND for an unknown id, BUSY when another instance runs a turn of it
     */
    public ConversationRecord record(Caller caller, String id) {
        return owned(caller, id).record();
    }

    /**
     * The branch of {@code id}'s thread that the thread shows (the one selected last, as the list has it): what a door that
     * knows the conversation but not its versions continues (MCP's {@code continuation_id}), so it goes on where the page
     * shows the conversation. {@code id} itself when nobody forked it.
     *
     * @throws ConversationException as {@link #record} does
     */
    public ConversationRecord shownBranch(Caller caller, String id) {
        ConversationRecord named = record(caller, id);
        hot.awaitWriter(); // a switch or a turn of a moment ago is in the store
        String shown;
        try {
            shown = store.thread(named.owner(), named.branch().threadId()).stream()
                    .max(Comparator.comparingLong(BranchRecord::selectedAtMillis).thenComparing(BranchRecord::id, Comparator.reverseOrder()))
                    .map(BranchRecord::id).orElse(id);
        } catch (StoreException e) {
            throw ConversationException.unavailable(e);
        }
        return shown.equals(id) ? named : record(caller, shown);
    }

    /** Renames the conversation: every branch of its thread, since the list shows the thread as one conversation. */
    public ConversationRecord rename(Caller caller, String id, String title) {
        String valid = validTitle(title);
        ConversationRecord renamed = null;
        for (HotConversation branch : thread(caller, owned(caller, id))) {
            ConversationRecord record = branch.rename(valid);
            changes.publish("renamed", record);
            renamed = branch.id().equals(id) ? record : renamed;
        }
        return renamed;
    }

    /**
     * Deletes the conversation with every branch of its thread: the list shows the thread as one conversation.
     *
     * @throws ConversationException BUSY while a turn runs on any of them (then none is deleted, unless a turn started
     *                               on one meanwhile: the branches before it are gone, the rest stay)
     */
    public void delete(Caller caller, String id) {
        List<HotConversation> branches = thread(caller, owned(caller, id));
        for (HotConversation branch : branches) {
            if (branch.isRunning()) {
                throw new ConversationException(ConversationException.Kind.BUSY, "A turn is running in "
                        + (branch.id().equals(id) ? "this conversation" : "another version of it (" + branch.id() + ")")
                        + "; stop it before deleting the conversation");
            }
        }
        for (HotConversation branch : branches) {
            ConversationRecord record = branch.record();
            branch.delete();
            hot.forget(branch);
            commands.deleted(record.owner(), branch.id());
            changes.publish("deleted", record);
        }
    }

    /** Every branch of {@code conversation}'s thread, held here (their leases taken), {@code conversation} among them. */
    private List<HotConversation> thread(Caller caller, HotConversation conversation) {
        hot.awaitWriter(); // a fork made here a moment ago is in the store
        List<String> ids;
        try {
            ids = threads.ids(conversation.record());
        } catch (StoreException e) {
            throw ConversationException.unavailable(e);
        }
        return ids.stream().map(branch -> branch.equals(conversation.id()) ? conversation : owned(caller, branch)).toList();
    }

    /**
     * Conversation {@code id} held here, if the caller owns it. Another person's conversation is NOT_FOUND, exactly as
     * a missing one, and is not even loaded (its lease is not taken): the store's query is by owner.
     */
    private HotConversation owned(Caller caller, String id) {
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

    /**
     * What the conversation's workspace holds, against its quota.
     *
     * @throws ConversationException NOT_FOUND for an unknown id
     */
    public Workspace.Usage workspace(Caller caller, String id) {
        return commands.usage(owned(caller, id).record().owner(), id);
    }

    /**
     * Removes every file the conversation's commands left in its workspace (one that holds a link leading out or
     * more than its quota runs programs again).
     *
     * @throws ConversationException NOT_FOUND for an unknown id, BUSY while a turn of it runs
     */
    public void clearWorkspace(Caller caller, String id) {
        HotConversation conversation = owned(caller, id);
        conversation.whileIdle(() -> commands.clear(conversation.record().owner(), id));
    }

    /**
     * Starts a turn with the person's new message.
     *
     * @throws ConversationException BUSY when a turn of the conversation is running (here or elsewhere), UNAVAILABLE
     *                               while the database cannot write (a full disk)
     */
    public AgentRun startTurn(Caller caller, String id, String content) {
        return startTurn(caller, id, content, List.of());
    }

    /**
     * Starts a turn with the person's new message and the documents attached to it (already read:
     * {@link dev.skillforge.server.document.Documents#read(List)}). A message with attachments may be empty.
     *
     * @throws ConversationException BUSY when a turn of the conversation is running (here or elsewhere), UNAVAILABLE
     *                               while the database cannot write (a full disk), BUDGET_SPENT when the caller's
     *                               monthly budget is spent (before anything is sent to a model)
     */
    public AgentRun startTurn(Caller caller, String id, String content, List<AttachedDocument> documents) {
        if (content == null || (content.isBlank() && documents.isEmpty())) {
            throw new ConversationException(ConversationException.Kind.INVALID, "The message is empty");
        }
        MessageLimit.check(content);
        requireStorable("message", content);
        validId(id);
        refuseWhileDraining();
        refuseWhileStorageFails();
        budgets.requireRoom(caller.personId());
        while (true) {
            HotConversation conversation = owned(caller, id);
            ConversationRecord record = conversation.record();
            ConversationModels.Choice choice = new ConversationModels.Choice(record.provider(), record.model());
            requireFits(choice, documents);
            requireSeen(choice, conversation, documents);
            String title = content.isBlank() ? documents.getFirst().attachment().name() : titleFrom(content);
            Optional<AgentRun> run = conversation.startTurn(content, documents, title, models.loop(choice),
                    commands.forConversation(record.owner(), id),
                    budgets.counting(record.owner(), models.prices(choice), models.runObserver(choice, id, record.owner(), content)));
            if (run.isPresent()) {
                announce(record, run.get());
                return run.get();
            }
            // handed over or deleted meanwhile: load again
        }
    }

    private void requireFits(ConversationModels.Choice choice, List<AttachedDocument> documents) {
        if (documents.isEmpty()) {
            return;
        }
        StringBuilder text = new StringBuilder();
        documents.forEach(document -> text.append(document.attachment().promptText()));
        String refusal = models.refusalToFit(choice, text.toString());
        if (refusal != null) {
            throw new ConversationException(ConversationException.Kind.TOO_LARGE, refusal);
        }
    }

    /** The new message's images must be ones the conversation's model sees, within its API's limits with those it sees already. */
    private void requireSeen(ConversationModels.Choice choice, HotConversation conversation, List<AttachedDocument> documents) {
        List<Attachment> added = images(documents);
        if (added.isEmpty()) {
            return;
        }
        List<Attachment> earlier = ContextView.visible(conversation.snapshot().entries().stream().map(HotConversation::entryOf).toList())
                .stream().filter(Entry.User.class::isInstance).flatMap(entry -> ((Entry.User) entry).images().stream()).toList();
        models.requireSeen(choice, earlier, added);
    }

    private static List<Attachment> images(List<AttachedDocument> documents) {
        return documents.stream().map(AttachedDocument::attachment).filter(Attachment::isImage).toList();
    }

    /**
     * Checks, before a conversation is made for them, that a first message's files can go to {@code provider} (a
     * configured name, or {@code null} for the default): they fit its model's window, and its model sees their images.
     *
     * @throws ConversationException INVALID for a provider not configured, TOO_LARGE for documents over the window
     * @throws dev.skillforge.server.document.DocumentException for images the model does not see or takes no more of
     */
    public void requireAccepted(String provider, List<AttachedDocument> documents) {
        ConversationModels.Choice choice = models.choose(provider, null);
        requireFits(choice, documents);
        models.requireSeen(choice, List.of(), images(documents));
    }

    /**
     * A file attached in a conversation, by its SHA-256, with the name and type it was first attached under.
     *
     * @throws ConversationException NOT_FOUND when the conversation does not reference such a file
     */
    public AttachmentDownload attachment(Caller caller, String id, String sha256) {
        Attachment attachment = referenced(caller, id, sha256);
        return new AttachmentDownload(attachment.name(), attachment.mediaType(), storedFile(id, sha256));
    }

    /** A conversation's stored file by its SHA-256, once what is on its way to the store has been written. */
    private byte[] storedFile(String id, String sha256) {
        writer.flush(timings.storeWait()); // a file attached a moment ago may still be on its way to the store
        try {
            return store.attachmentFile(id, sha256).orElseThrow(() -> new ConversationException(
                    ConversationException.Kind.UNAVAILABLE, "The attachment is not stored yet; try again shortly"));
        } catch (StoreException e) {
            throw ConversationException.unavailable(e);
        }
    }

    /** What the model reads of an attached file: its extracted text in its fixed wrapping, as stored. */
    public String attachmentText(Caller caller, String id, String sha256) {
        return referenced(caller, id, sha256).promptText();
    }

    private Attachment referenced(Caller caller, String id, String sha256) {
        return snapshot(caller, id).entries().stream().flatMap(entry -> entry.attachments().stream())
                .filter(a -> a.sha256().equals(sha256)).findFirst()
                .orElseThrow(() -> new ConversationException(ConversationException.Kind.NOT_FOUND,
                        "Conversation " + id + " has no attachment " + StorableText.abbreviate(sha256, 64)));
    }

    /** An attached file to send back. */
    public record AttachmentDownload(String name, String mediaType, byte[] data) {
    }

    /** Tells the pages a turn started, and, from a virtual thread that waits for it, that it ended. */
    private void announce(ConversationRecord record, AgentRun run) {
        changes.publish("running", record);
        Thread.ofVirtual().name("changes-" + record.id()).start(() -> {
            while (!run.awaitEnd(Duration.ofMinutes(1))) {
                if (Thread.currentThread().isInterrupted()) {
                    return;
                }
            }
            changes.publish("ended", record);
        });
    }

    /** The running turn, or else the last one run here since this conversation was loaded. */
    public Optional<AgentRun> currentOrLastRun(Caller caller, String id) {
        Optional<HotConversation> conversation = hot.get(validId(id));
        if (conversation.isEmpty()) {
            requireStored(caller, id); // 404 for an unknown id, or another person's
            return Optional.empty();
        }
        if (!conversation.get().record().owner().equals(caller.personId())) {
            throw ConversationException.notFound(id);
        }
        return conversation.get().currentOrLastRun();
    }

    /**
     * NOT_FOUND unless the store has the conversation: one row read, not its history (every client that follows a
     * turn of another instance asks this).
     */
    private void requireStored(Caller caller, String id) {
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

    /**
     * Whether a turn of the conversation is recorded running while it is not held here: another instance
     * runs it (or died running it).
     */
    public boolean runningElsewhere(String id) {
        if (hot.get(validId(id)).isPresent()) {
            return false;
        }
        hot.awaitWriter(); // our own last writes (a turn that ended here before a hand-over) are in the store
        try {
            List<TurnRecord> turns = store.turns(id);
            return !turns.isEmpty() && TurnRecord.RUNNING.equals(turns.getLast().status());
        } catch (StoreException e) {
            throw ConversationException.unavailable(e);
        }
    }

    /** Waits until the store no longer records a turn of the conversation running elsewhere; false if it still does after {@code timeout}. */
    public boolean awaitNotRunningElsewhere(String id, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (runningElsewhere(id)) {
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            Thread.sleep(50);
        }
        return true;
    }

    /** Stops the running turn; false when none was running. */
    public boolean stop(Caller caller, String id) {
        Optional<HotConversation> conversation = hot.get(validId(id));
        if (conversation.isEmpty() || !conversation.get().record().owner().equals(caller.personId())) {
            snapshot(caller, id); // 404 for an unknown id, or another person's
            return false;
        }
        Optional<AgentRun> run = conversation.get().running();
        run.ifPresent(r -> r.cancel("stopped by the user"));
        return run.isPresent();
    }

    /**
     * The exact messages array the conversation's provider receives next (before the next user
     * message): the model's view, as the last context cut left it.
     */
    public JsonNode nextRequestMessages(Caller caller, String id) {
        ExportSource source = exportSource(caller, id);
        ConversationRecord record = source.record();
        return models.nextRequestMessages(new ConversationModels.Choice(record.provider(), record.model()),
                new ModelCall(record.systemPrompt(), ContextView.visible(source.entries()), record.cacheKey()));
    }

    /** The entries and system prompt the provider would receive next. */
    public ExportSource exportSource(Caller caller, String id) {
        ConversationSnapshot snapshot = snapshot(caller, id);
        return new ExportSource(snapshot.record(), snapshot.entries().stream().map(HotConversation::entryOf).toList(), snapshot);
    }

    public record ExportSource(ConversationRecord record, List<Entry> entries, ConversationSnapshot snapshot) {
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
        return line.length() <= AUTOMATIC_TITLE_LENGTH ? line : StorableText.prefix(line, AUTOMATIC_TITLE_LENGTH).strip() + "…";
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
        long deadline = System.nanoTime() + grace.toNanos();
        hot.letGoIdle("the server is stopping");
        List<AgentRun> runs = hot.running();
        if (!runs.isEmpty()) {
            log.info("stopping: waiting up to {} for {} running turns to finish", grace, runs.size());
        }
        // Looked at again after each wait: a turn that passed the check just before draining began counts too.
        while (!runs.isEmpty()) {
            if (!runs.getFirst().awaitEnd(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))) {
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

    private void refuseWhileDraining() {
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
    private void refuseWhileStorageFails() {
        if (writer.storageFailure().isPresent()) {
            throw new ConversationException(ConversationException.Kind.UNAVAILABLE, "The server cannot store conversations right now:"
                    + " its database cannot write (the disk is full or failing). Nothing was sent to the model; try again once"
                    + " the server has room.");
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
