package dev.skillforge.server.store;

import java.util.List;

/** One change to the store. The writer applies them in the order they were made. */
public sealed interface Write {

    /** The {@link #epoch()} of a write made under no lease (recovery of a crashed instance's own turns): never refused. */
    long UNFENCED = -1;

    String conversationId();

    /**
     * The epoch of the lease this write was made under ({@link Lease.Held#epoch()}), or
     * {@link #UNFENCED}. The store applies a fenced write only while that epoch is still the
     * conversation's and held: a write from an instance whose lease was taken over is refused.
     */
    long epoch();

    /**
     * Creates a conversation; ignored if it exists already (so a retried batch is harmless). With a
     * {@code leaseOwner}, the conversation's lease is written for it in the same transaction: a new
     * random id cannot be wanted by another instance yet, so its creator takes the lease without a
     * round trip of its own.
     */
    record CreateConversation(ConversationRecord conversation, String leaseOwner, long leaseExpiresAtMillis) implements Write {

        /** The epoch of the creator's lease: its later writes carry it. */
        public static final long LEASE_EPOCH = 1;
        public CreateConversation(ConversationRecord conversation) {
            this(conversation, null, 0);
        }

        public String conversationId() {
            return conversation.id();
        }

        /** Creating is never fenced: it writes the first lease itself. */
        public long epoch() {
            return UNFENCED;
        }
    }

    /**
     * Appends an entry with its attachment references; ignored if the (conversation, seq) exists already.
     * Also moves the conversation's updated time. {@code files} are the attached files the entry brings
     * (each stored once per conversation: a file stored already is not written again).
     */
    record AppendEntry(StoredEntry entry, List<AttachmentFile> files, long epoch) implements Write {
        public AppendEntry {
            files = List.copyOf(files);
        }

        public AppendEntry(StoredEntry entry, List<AttachmentFile> files) {
            this(entry, files, UNFENCED);
        }

        public AppendEntry(StoredEntry entry, long epoch) {
            this(entry, List.of(), epoch);
        }

        public AppendEntry(StoredEntry entry) {
            this(entry, List.of(), UNFENCED);
        }

        public String conversationId() {
            return entry.conversationId();
        }
    }

    /** Inserts or replaces the record of one turn. */
    record PutTurn(TurnRecord turn, long epoch) implements Write {
        public PutTurn(TurnRecord turn) {
            this(turn, UNFENCED);
        }

        public String conversationId() {
            return turn.conversationId();
        }
    }

    record SetTitle(String conversationId, String title, long updatedAtMillis, long epoch) implements Write {
        public SetTitle(String conversationId, String title, long updatedAtMillis) {
            this(conversationId, title, updatedAtMillis, UNFENCED);
        }
    }

    /**
     * Marks a branch as the one its thread shows (made, switched to, or given a turn) at {@code atMillis}; an earlier
     * time than the one stored changes nothing, so a retried or late write cannot undo a newer choice.
     */
    record SelectBranch(String conversationId, long atMillis, long epoch) implements Write {
        public SelectBranch(String conversationId, long atMillis) {
            this(conversationId, atMillis, UNFENCED);
        }
    }

    /** Deletes a conversation with its entries, attachments, turns and lease. */
    record DeleteConversation(String conversationId, long epoch) implements Write {
        public DeleteConversation(String conversationId) {
            this(conversationId, UNFENCED);
        }
    }
}
