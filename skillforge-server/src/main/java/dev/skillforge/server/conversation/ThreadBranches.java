package dev.skillforge.server.conversation;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.store.BranchRecord;
import dev.skillforge.server.store.ConversationRecord;
import dev.skillforge.server.store.ConversationStore;
import dev.skillforge.server.store.StoreException;
import dev.skillforge.server.store.StoredEntry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A conversation's thread as the store has it: its branches, and the switches between their versions that a snapshot shows. */
final class ThreadBranches {

    private static final Logger log = LoggerFactory.getLogger(ThreadBranches.class);

    private final ConversationStore store;

    ThreadBranches(ConversationStore store) {
        this.store = store;
    }

    /**
     * The ids of every branch of {@code record}'s thread, oldest first, {@code record} among them (also while its creation
     * is still on its way to the store).
     *
     * @throws StoreException when the store cannot be read
     */
    List<String> ids(ConversationRecord record) {
        List<String> ids = new ArrayList<>(store.thread(record.owner(), record.branch().threadId()).stream().map(BranchRecord::id).toList());
        if (!ids.contains(record.id())) {
            ids.add(record.id());
        }
        return ids;
    }

    /**
     * The snapshot's {@code branches}: for each turn with more than one version ({@link BranchSwitches}), the branch ids to
     * open, which one is shown, and whether every version sends the same message (only its answer was regenerated). Read
     * from the store without waiting for the writer, so a hot conversation is shown while the database is away: then with
     * no switches (logged), and a sibling's newest turn may be missing until its writes land.
     */
    ArrayNode json(ConversationSnapshot snapshot) {
        ConversationRecord record = snapshot.record();
        ArrayNode list = Json.MAPPER.createArrayNode();
        int turns = snapshot.turns().isEmpty() ? 0 : snapshot.turns().getLast().turn() + 1;
        BranchRecord shown = new BranchRecord(record.id(), record.forkedFrom(), record.branch().forkedAtTurn(), record.createdAtMillis(),
                record.createdAtMillis(), turns);
        try {
            for (BranchSwitches.Switch at : BranchSwitches.of(shown, store.thread(record.owner(), record.branch().threadId()))) {
                ObjectNode node = list.addObject().put("turn", at.turn()).put("index", at.index()).put("sameMessage", sameMessage(snapshot, at));
                at.ids().forEach(node.putArray("ids")::add);
            }
        } catch (StoreException e) {
            log.warn("conversation {}: its versions are not shown, the store cannot be read: {}", record.id(), e.getMessage());
            list.removeAll();
        }
        return list;
    }

    /** Whether every version of the switch's turn has the shown one's message (the shown one's from memory: it may not be stored yet). */
    private boolean sameMessage(ConversationSnapshot snapshot, BranchSwitches.Switch at) {
        String shownMaker = at.makers().get(at.index());
        List<String> others = at.makers().stream().filter(maker -> !maker.equals(shownMaker)).toList();
        Map<String, String> messages = store.userMessages(others, at.turn());
        String shownMessage = snapshot.entries().stream().filter(e -> e.turn() == at.turn() && e.kind().equals("user"))
                .map(StoredEntry::content).findFirst().orElse(null);
        return others.stream().allMatch(maker -> messages.containsKey(maker) && messages.get(maker).equals(shownMessage));
    }
}
