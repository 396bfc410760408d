package dev.skillforge.server.conversation;

import dev.skillforge.core.context.ContextView;
import dev.skillforge.core.transcript.Attachment;
import dev.skillforge.core.transcript.Entry;
import dev.skillforge.core.transcript.StorableText;
import dev.skillforge.server.document.AttachedDocument;
import dev.skillforge.server.people.Caller;
import dev.skillforge.server.run.AgentRun;
import dev.skillforge.server.run.RunEventLog;
import dev.skillforge.server.store.ConversationRecord;
import dev.skillforge.server.store.StoreException;
import dev.skillforge.server.store.TurnRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The turns of a person's conversations: start one, stop it, follow its events. Runs belong to the server, not to a
 * connection: a client follows a run's {@link RunEventLog} and may leave and come back. Whether a turn runs here or on
 * another instance of a fleet is decided here, for every door: a turn recorded running on a conversation not held here
 * is stopped and followed through {@link OtherInstances}.
 */
public final class Turns {

    private static final Logger log = LoggerFactory.getLogger(Turns.class);
    /** Automatic titles: the first line of the first message, cut here. */
    static final int AUTOMATIC_TITLE_LENGTH = 60;
    /** How long a follower waits for the instance running a turn to answer (it is dead, or holds nothing, otherwise). */
    private static final Duration ELSEWHERE_ANSWER_WAIT = Duration.ofSeconds(2);
    /** How long a stop waits for another instance to record the turn it stopped. */
    private static final Duration ELSEWHERE_STOP_WAIT = Duration.ofSeconds(10);

    private final ConversationHost host;
    /** Reaches the turns other instances run; absent on a database only one instance uses (SQLite). */
    private final Optional<OtherInstances> elsewhere;

    /** @param elsewhere the other instances of a fleet; empty for a server alone on its database */
    public Turns(ConversationHost host, Optional<OtherInstances> elsewhere) {
        this.host = host;
        this.elsewhere = elsewhere;
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
        ConversationHost.requireStorable("message", content);
        ConversationHost.validId(id);
        host.refuseWhileDraining();
        host.refuseWhileStorageFails();
        host.budgets.requireRoom(caller.personId());
        while (true) {
            HotConversation conversation = host.owned(caller, id);
            ConversationRecord record = conversation.record();
            ConversationModels.Choice choice = new ConversationModels.Choice(record.provider(), record.model());
            requireFits(choice, documents);
            requireSeen(choice, conversation, documents);
            String title = content.isBlank() ? documents.getFirst().attachment().name() : titleFrom(content);
            Optional<AgentRun> run = conversation.startTurn(content, documents, title, host.models.loop(choice),
                    host.commands.forConversation(record.owner(), id),
                    host.budgets.counting(record.owner(), host.models.prices(choice), host.models.runObserver(choice, id, record.owner(), content)));
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
        String refusal = host.models.refusalToFit(choice, text.toString());
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
        host.models.requireSeen(choice, earlier, added);
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
        ConversationModels.Choice choice = host.models.choose(provider, null);
        requireFits(choice, documents);
        host.models.requireSeen(choice, List.of(), images(documents));
    }

    /** Tells the pages a turn started, and, from a virtual thread that waits for it, that it ended. */
    private void announce(ConversationRecord record, AgentRun run) {
        host.changes().publish("running", record);
        Thread.ofVirtual().name("changes-" + record.id()).start(() -> {
            while (!run.awaitEnd(Duration.ofMinutes(1))) {
                if (Thread.currentThread().isInterrupted()) {
                    return;
                }
            }
            host.changes().publish("ended", record);
        });
    }

    /** The running turn, or else the last one run here since this conversation was loaded. */
    private Optional<AgentRun> currentOrLastRun(Caller caller, String id) {
        Optional<HotConversation> conversation = host.hot.get(ConversationHost.validId(id));
        if (conversation.isEmpty()) {
            host.requireStored(caller, id); // 404 for an unknown id, or another person's
            return Optional.empty();
        }
        if (!conversation.get().record().owner().equals(caller.personId())) {
            throw ConversationException.notFound(id);
        }
        return conversation.get().currentOrLastRun();
    }

    /**
     * Whether a turn of the conversation is recorded running while it is not held here: another instance
     * runs it (or died running it).
     */
    private boolean runningElsewhere(String id) {
        if (host.hot.get(ConversationHost.validId(id)).isPresent()) {
            return false;
        }
        host.hot.awaitWriter(); // our own last writes (a turn that ended here before a hand-over) are in the store
        try {
            List<TurnRecord> turns = host.store.turns(id);
            return !turns.isEmpty() && TurnRecord.RUNNING.equals(turns.getLast().status());
        } catch (StoreException e) {
            throw ConversationException.unavailable(e);
        }
    }

    /** Waits until the store no longer records a turn of the conversation running elsewhere; false if it still does after {@code timeout}. */
    private boolean awaitNotRunningElsewhere(String id, Duration timeout) throws InterruptedException {
        long deadline = host.ticker.getAsLong() + timeout.toNanos();
        while (runningElsewhere(id)) {
            if (host.ticker.getAsLong() - deadline >= 0) {
                return false;
            }
            Thread.sleep(50);
        }
        return true;
    }

    /** Stops the turn running here; false when none runs here. */
    private boolean stopIfRunningHere(Caller caller, String id) {
        Optional<HotConversation> conversation = host.hot.get(ConversationHost.validId(id));
        if (conversation.isEmpty() || !conversation.get().record().owner().equals(caller.personId())) {
            host.requireStored(caller, id); // 404 for an unknown id, or another person's: one row read, not the history
            return false;
        }
        Optional<AgentRun> run = conversation.get().running();
        run.ifPresent(r -> r.cancel("stopped by the user"));
        return run.isPresent();
    }

    private static String titleFrom(String content) {
        String line = content.strip().lines().findFirst().orElse("").strip();
        return line.length() <= AUTOMATIC_TITLE_LENGTH ? line : StorableText.prefix(line, AUTOMATIC_TITLE_LENGTH).strip() + "…";
    }

    /** Whether a turn of conversation {@code id} (one the caller has already been given) runs here. */
    public boolean isRunning(String id) {
        return host.hot.get(id).map(HotConversation::isRunning).orElse(false);
    }

    /**
     * Stops the conversation's turn, here or on the instance that runs it; once that one has stopped it, answers
     * {@code true}. False when no turn runs.
     *
     * @throws ConversationException NOT_FOUND for an unknown id, or another person's; UNAVAILABLE when the instance
     *                               running it cannot be reached
     */
    public boolean stop(Caller caller, String id) throws InterruptedException {
        if (stopIfRunningHere(caller, id)) {
            return true;
        }
        if (elsewhere.isEmpty() || !runningElsewhere(id)) {
            return false;
        }
        try {
            elsewhere.get().requestStop(id);
        } catch (StoreException e) {
            throw elsewhereUnavailable(e);
        }
        return awaitNotRunningElsewhere(id, ELSEWHERE_STOP_WAIT);
    }

    /** What a client asking for a conversation's events follows: a run here, one on another instance, or nothing. */
    public sealed interface Followed {

        /** The running (or last) turn held here: its events, every one since the turn began. */
        record Here(RunEventLog events) implements Followed {
        }

        /** A turn another instance runs, from the event after the one asked for. */
        record Elsewhere(RunElsewhere run) implements Followed {
        }

        /** No turn to follow. */
        record Nothing() implements Followed {
        }
    }

    /**
     * The running turn of the conversation, or else the last one run here since it was loaded, or one another instance
     * runs (followed from the event after {@code afterId}).
     *
     * @throws ConversationException NOT_FOUND for an unknown id, or another person's; UNAVAILABLE when the instance
     *                               running it cannot be reached
     */
    public Followed follow(Caller caller, String id, long afterId) {
        Optional<AgentRun> run = currentOrLastRun(caller, id);
        if (run.isPresent()) {
            return new Followed.Here(run.get().events());
        }
        if (elsewhere.isPresent() && runningElsewhere(id)) {
            try {
                Optional<RunElsewhere> remote = elsewhere.get().follow(id, afterId, ELSEWHERE_ANSWER_WAIT);
                if (remote.isPresent()) {
                    return new Followed.Elsewhere(remote.get());
                }
            } catch (StoreException e) {
                throw elsewhereUnavailable(e);
            }
        }
        return new Followed.Nothing();
    }

    /** The database, through which the instances reach each other, failed: logged with its reason, answered without it. */
    private static ConversationException elsewhereUnavailable(StoreException cause) {
        log.warn("fleet: the other instances cannot be reached: {}", cause.getMessage());
        return new ConversationException(ConversationException.Kind.UNAVAILABLE,
                "The server instance running this turn cannot be reached right now; try again shortly");
    }
}
