package dev.skillforge.server.conversation;

import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.context.ContextView;
import dev.skillforge.core.transcript.Attachment;
import dev.skillforge.server.people.Caller;
import dev.skillforge.server.store.AttachmentFile;
import dev.skillforge.server.store.ConversationRecord;
import dev.skillforge.server.store.Lease;
import dev.skillforge.server.store.StoredEntry;
import dev.skillforge.server.store.TurnRecord;
import dev.skillforge.server.store.Write;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/** Branches of a conversation: a copy of its turns before one of them, which editing a message and regenerating an answer make. */
public final class Forks {

    private final ConversationHost host;

    public Forks(ConversationHost host) {
        this.host = host;
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
        host.refuseWhileStorageFails();
        ConversationSnapshot original = host.owned(caller, id).snapshot();
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
        long now = host.clock.millis();
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
        writes.add(new Write.CreateConversation(fork, host.instanceId(), now + host.timings.leaseTtl().toMillis()));
        Set<String> copiedFiles = new HashSet<>();
        for (StoredEntry entry : entries) {
            // Files are stored per conversation: the fork gets its own copy of each, with the first entry that uses it.
            List<AttachmentFile> files = new ArrayList<>();
            for (Attachment attachment : entry.attachments()) {
                if (copiedFiles.add(attachment.sha256())) {
                    files.add(new AttachmentFile(attachment.sha256(), host.storedFile(from.id(), attachment.sha256())));
                }
            }
            writes.add(new Write.AppendEntry(entry, files));
        }
        turns.forEach(turn -> writes.add(new Write.PutTurn(turn)));
        long created = host.writer.submitAll(writes); // one transaction: a fork is there whole or not at all
        host.commands.forked(from.owner(), from.id(), forkId);
        HotConversation copy = host.hot.newCopy(fork, entries, turns,
                new Lease.Held(forkId, Write.CreateConversation.LEASE_EPOCH, now + host.timings.leaseTtl().toMillis()), () -> host.writer.applied(created));
        host.hot.adopt(copy);
        ConversationModels.Choice choice = new ConversationModels.Choice(fork.provider(), fork.model());
        host.models.expectPrefix(choice, new ModelCall(fork.systemPrompt(), ContextView.visible(entries.stream().map(HotConversation::entryOf).toList()), fork.cacheKey()));
        host.writer.flush(host.timings.storeWait());
        host.changes().publish("created", fork);
        return fork;
    }
}
