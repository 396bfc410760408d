package dev.skillforge.server.conversation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.context.ContextView;
import dev.skillforge.core.transcript.Entry;
import dev.skillforge.server.exec.Workspace;
import dev.skillforge.server.people.Caller;
import dev.skillforge.server.search.Highlight;
import dev.skillforge.server.search.SearchQuery;
import dev.skillforge.server.search.Snippet;
import dev.skillforge.server.search.Snippets;
import dev.skillforge.server.store.BranchRecord;
import dev.skillforge.server.store.ConversationRecord;
import dev.skillforge.server.store.ConversationStore;
import dev.skillforge.server.store.FoundConversation;
import dev.skillforge.server.store.Lease;
import dev.skillforge.server.store.StoreException;
import dev.skillforge.server.store.Write;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * A person's conversations by id: create, list, search, read, rename, delete, export, and their workspaces. Only the
 * caller's own: another person's id is answered as an unknown one ({@link ConversationException.Kind#NOT_FOUND}).
 */
public final class Conversations {

    private static final Logger log = LoggerFactory.getLogger(Conversations.class);
    /** Titles are at most this long (after stripping white space at the ends). */
    public static final int MAX_TITLE_LENGTH = 200;

    private final ConversationHost host;

    public Conversations(ConversationHost host) {
        this.host = host;
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
        host.refuseWhileDraining();
        host.refuseWhileStorageFails();
        String validTitle = title == null ? "" : validTitle(title);
        PersonalDefaults.Start start = host.defaults.start(caller.personId());
        ConversationModels.Choice choice = choose(provider, model, start);
        long now = host.clock.millis();
        String id = UUID.randomUUID().toString(); // 122 random bits from SecureRandom
        ConversationRecord record = new ConversationRecord(id, validTitle, start.systemPrompt(host.systemPrompt), choice.provider(),
                choice.model(), now, now, caller.personId());
        // A new random id cannot be leased by anyone else yet: the lease is written with the conversation.
        long created = host.writer.submit(new Write.CreateConversation(record, host.instanceId(), now + host.timings.leaseTtl().toMillis()));
        host.hot.adopt(host.hot.newCopy(record, List.of(), List.of(),
                new Lease.Held(id, Write.CreateConversation.LEASE_EPOCH, now + host.timings.leaseTtl().toMillis()), () -> host.writer.applied(created)));
        // Other instances know a conversation only from the database: store it (with its lease) before
        // the client has its id, or a request sent to another instance at once is answered 404.
        // Bounded, and not a turn: during an outage the conversation still starts here and is written later.
        host.writer.flush(host.timings.storeWait());
        host.changes().publish("created", record);
        return record;
    }

    /** The provider asked for; else the person's default while it is still configured; else the server's. */
    private ConversationModels.Choice choose(String provider, String model, PersonalDefaults.Start start) {
        if (provider != null || model != null || start.provider().isEmpty()) {
            return host.models.choose(provider, model);
        }
        try {
            return host.models.choose(start.provider().get(), null);
        } catch (ConversationException e) {
            log.info("the default provider '{}' a person chose is not configured any more: the server's default is used", start.provider().get());
            return host.models.choose(null, null);
        }
    }

    /**
     * The caller's conversations, one row per thread (its branch selected last), most recently active first. Waits briefly
     * for the writer so a new one is listed.
     */
    public List<ConversationRecord> list(Caller caller, int limit, int offset) {
        host.writer.flush(host.timings.storeWait());
        try {
            return host.store.conversations(caller.personId(), limit, offset);
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
        host.writer.flush(host.timings.storeWait());
        List<FoundConversation> found;
        try {
            found = host.store.search(caller.personId(), query, limit);
        } catch (StoreException e) {
            throw ConversationException.unavailable(e);
        }
        return found.stream().map(f -> new SearchResult(f.record(), Snippets.inTitle(query, f.record().title()),
                Snippets.of(query, f.sources()))).toList();
    }

    /** A conversation a search found, and where: the matches in its title, and passages of its texts. */
    public record SearchResult(ConversationRecord record, List<Highlight> titleMatches, List<Snippet> snippets) {
    }

    /** How many conversations the caller has. */
    public long count(Caller caller) {
        try {
            return host.store.count(caller.personId());
        } catch (StoreException e) {
            throw ConversationException.unavailable(e);
        }
    }

    /**
     * What {@code GET /api/conversations/{id}} answers: the snapshot, its costs priced as the conversation's model is, and
     * its {@code branches}: where other versions of its turns are ({@link ThreadBranches#json}).
     */
    public ObjectNode snapshotJson(Caller caller, String id) {
        ConversationSnapshot snapshot = snapshot(caller, id);
        ConversationRecord record = snapshot.record();
        ObjectNode json = snapshot.toJson(host.models.prices(new ConversationModels.Choice(record.provider(), record.model())).orElse(null));
        json.set("branches", host.threads.json(snapshot));
        return json;
    }

    /**
     * Makes branch {@code id} the one its thread shows: the list's row of the thread opens it from now on. Written in the
     * background; nothing of the conversation is loaded.
     *
     * @throws ConversationException NOT_FOUND for an unknown id, or another person's
     */
    public ConversationRecord select(Caller caller, String id) {
        Optional<HotConversation> held = host.hot.get(ConversationHost.validId(id));
        ConversationRecord record;
        if (held.isPresent() && held.get().record().owner().equals(caller.personId())) {
            record = held.get().record();
        } else {
            host.hot.awaitWriter(); // our own writes (a create, a delete) are in the store
            try {
                record = host.store.conversation(caller.personId(), id).orElseThrow(() -> ConversationException.notFound(id));
            } catch (StoreException e) {
                throw ConversationException.unavailable(e);
            }
        }
        host.writer.submit(new Write.SelectBranch(id, host.clock.millis()));
        return record;
    }

    /**
     * The conversation's record (its provider, model, title…), loading the conversation here if needed.
     *
     * @throws ConversationException NOT_FOUND for an unknown id, BUSY when another instance runs a turn of it
     */
    public ConversationRecord record(Caller caller, String id) {
        return host.owned(caller, id).record();
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
        host.hot.awaitWriter(); // a switch or a turn of a moment ago is in the store
        String shown;
        try {
            shown = host.store.thread(named.owner(), named.branch().threadId()).stream()
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
        for (HotConversation branch : thread(caller, host.owned(caller, id))) {
            ConversationRecord record = branch.rename(valid);
            host.changes().publish("renamed", record);
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
        List<HotConversation> branches = thread(caller, host.owned(caller, id));
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
            host.hot.forget(branch);
            host.commands.deleted(record.owner(), branch.id());
            host.changes().publish("deleted", record);
        }
    }

    /** Every branch of {@code conversation}'s thread, held here (their leases taken), {@code conversation} among them. */
    private List<HotConversation> thread(Caller caller, HotConversation conversation) {
        host.hot.awaitWriter(); // a fork made here a moment ago is in the store
        List<String> ids;
        try {
            ids = host.threads.ids(conversation.record());
        } catch (StoreException e) {
            throw ConversationException.unavailable(e);
        }
        return ids.stream().map(branch -> branch.equals(conversation.id()) ? conversation : host.owned(caller, branch)).toList();
    }

    /**
     * What the conversation's workspace holds, against its quota.
     *
     * @throws ConversationException NOT_FOUND for an unknown id
     */
    public Workspace.Usage workspace(Caller caller, String id) {
        return host.commands.usage(host.owned(caller, id).record().owner(), id);
    }

    /**
     * Removes every file the conversation's commands left in its workspace (one that holds a link leading out or
     * more than its quota runs programs again).
     *
     * @throws ConversationException NOT_FOUND for an unknown id, BUSY while a turn of it runs
     */
    public void clearWorkspace(Caller caller, String id) {
        HotConversation conversation = host.owned(caller, id);
        conversation.whileIdle(() -> host.commands.clear(conversation.record().owner(), id));
    }

    /**
     * The exact messages array the conversation's provider receives next (before the next user
     * message): the model's view, as the last context cut left it.
     */
    public JsonNode nextRequestMessages(Caller caller, String id) {
        ExportSource source = exportSource(caller, id);
        ConversationRecord record = source.record();
        return host.models.nextRequestMessages(new ConversationModels.Choice(record.provider(), record.model()),
                new ModelCall(record.systemPrompt(), ContextView.visible(source.entries()), record.cacheKey()));
    }

    /** The entries and system prompt the provider would receive next. */
    public ExportSource exportSource(Caller caller, String id) {
        ConversationSnapshot snapshot = snapshot(caller, id);
        return new ExportSource(snapshot.record(), snapshot.entries().stream().map(HotConversation::entryOf).toList(), snapshot);
    }

    public record ExportSource(ConversationRecord record, List<Entry> entries, ConversationSnapshot snapshot) {
    }

    static String validTitle(String title) {
        ConversationHost.requireStorable("title", title);
        String stripped = title.strip();
        if (stripped.length() > MAX_TITLE_LENGTH) {
            throw new ConversationException(ConversationException.Kind.INVALID,
                    "The title is " + stripped.length() + " characters; the limit is " + MAX_TITLE_LENGTH);
        }
        return stripped;
    }

    /** A conversation of the caller as the page shows it: its entries verbatim and its turns. */
    public ConversationSnapshot snapshot(Caller caller, String id) {
        return host.snapshot(caller, id);
    }

    /** What changes in the conversations here, for the pages' live lists. */
    public ConversationChanges changes() {
        return host.changes();
    }
}
