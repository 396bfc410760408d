package dev.skillforge.server.store;

import java.util.List;

/** One change to the store. The writer applies them in the order they were made. */
public sealed interface Write {

    String conversationId();

    /**
     * Creates a conversation; ignored if it exists already (so a retried batch is harmless). With a
     * {@code leaseOwner}, the conversation's lease is written for it in the same transaction: a new
     * random id cannot be wanted by another instance yet, so its creator takes the lease without a
     * round trip of its own.
     */
    record CreateConversation(ConversationRecord conversation, String leaseOwner, long leaseExpiresAtMillis) implements Write {
        public CreateConversation(ConversationRecord conversation) {
            this(conversation, null, 0);
        }

        public String conversationId() {
            return conversation.id();
        }
    }

    /**
     * Appends an entry with its attachment references; ignored if the (conversation, seq) exists already.
     * Also moves the conversation's updated time. {@code files} are the attached files the entry brings
     * (each stored once per conversation: a file stored already is not written again).
     */
    record AppendEntry(StoredEntry entry, List<AttachmentFile> files) implements Write {
        public AppendEntry {
            files = List.copyOf(files);
        }

        public AppendEntry(StoredEntry entry) {
            this(entry, List.of());
        }

        public String conversationId() {
            return entry.conversationId();
        }
    }

    /** Inserts or replaces the record of one turn. */
    record PutTurn(TurnRecord turn) implements Write {
        public String conversationId() {
            return turn.conversationId();
        }
    }

    record SetTitle(String conversationId, String title, long updatedAtMillis) implements Write {
    }

    /** Deletes a conversation with its entries, attachments, turns and lease. */
    record DeleteConversation(String conversationId) implements Write {
    }
}
