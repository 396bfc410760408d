package dev.skillforge.server.conversation;

import dev.skillforge.server.store.ConversationStore;

/**
 * What a lease renewal says of one conversation held here. A lease the store does not have at all is not the same
 * as one another instance holds: while the conversation's creation waits in the writer (the database cannot write:
 * a full disk, an outage), nobody else can lease a conversation the store does not have, so it is still this
 * instance's.
 */
enum LeaseFinding {

    /** Still held, and extended. */
    HELD,
    /** No lease at all, and the conversation's creation is not written yet: held, until the store has it. */
    NOT_STORED_YET,
    /** Another instance holds the lease, or the conversation was written and is gone from the store (deleted elsewhere). */
    LOST;

    /** @param stored whether the conversation's creation was written before the renewal began */
    static LeaseFinding of(ConversationStore.Renewal renewal, String conversationId, boolean stored) {
        if (renewal.held().contains(conversationId)) {
            return HELD;
        }
        return renewal.unleased().contains(conversationId) && !stored ? NOT_STORED_YET : LOST;
    }

    /** Why a {@link #LOST} lease is lost, for the log. */
    static String whyLost(ConversationStore.Renewal renewal, String conversationId) {
        return renewal.unleased().contains(conversationId) ? "the conversation is no longer in the store (deleted by another instance)"
                : "another instance holds it";
    }
}
