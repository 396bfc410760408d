package dev.skillforge.server.store;

import java.util.Objects;

/**
 * A stored conversation. The system prompt, provider and model are fixed when it starts (a prompt
 * cache cannot carry over a change); the title may change.
 *
 * @param branch   where it sits in its thread: the thread, and for a fork where it was forked from
 * @param cacheKey the key its model calls go under (its prefix guard's, and the provider's cache routing):
 *                 its own id, or for a fork {@code ROOT/ID}, whose part before the slash routes the provider's
 *                 cache to where the shared prefix is ({@code ModelCall#routingKey})
 * @param owner    the id of the person whose conversation it is ({@link dev.skillforge.server.people.Caller}); for
 *                 anyone else it does not exist
 */
public record ConversationRecord(String id, String title, String systemPrompt, String provider, String model,
                                 long createdAtMillis, long updatedAtMillis, Branch branch, String cacheKey, String owner) {

    /**
     * A conversation's place among the versions of one conversation of the list (design.md, "Branches").
     *
     * @param threadId     the conversation the whole thread grew from (for one nobody forked, its own id)
     * @param forkedFrom   the conversation this one was copied from, or {@code null} for the thread's first
     * @param forkedAtTurn the first turn this one has of its own: the turns before it are copies of {@code forkedFrom}'s
     *                     (0 for the thread's first)
     */
    public record Branch(String threadId, String forkedFrom, int forkedAtTurn) {

        public Branch {
            Objects.requireNonNull(threadId, "threadId");
            if (forkedAtTurn < 0) {
                throw new IllegalArgumentException("forkedAtTurn must be at least 0, was " + forkedAtTurn);
            }
        }

        /** The branch of a conversation nobody forked: a thread of its own. */
        public static Branch root(String id) {
            return new Branch(id, null, 0);
        }

        /** A fork of {@code from} before turn {@code turn}, in {@code from}'s thread. */
        public static Branch forkOf(ConversationRecord from, int turn) {
            return new Branch(from.branch().threadId(), from.id(), turn);
        }
    }

    /** A conversation of {@code owner} that is nobody's fork: its thread and cache key are its id. */
    public ConversationRecord(String id, String title, String systemPrompt, String provider, String model,
                              long createdAtMillis, long updatedAtMillis, String owner) {
        this(id, title, systemPrompt, provider, model, createdAtMillis, updatedAtMillis, null, id, owner);
    }

    public ConversationRecord {
        if (branch == null) {
            branch = Branch.root(id);
        }
        if (cacheKey == null) {
            cacheKey = id;
        }
        Objects.requireNonNull(owner, "owner");
    }

    /** The conversation this one was forked from, or {@code null}. */
    public String forkedFrom() {
        return branch.forkedFrom();
    }

    /** This conversation with another title, changed at {@code updatedAtMillis}. */
    public ConversationRecord withTitle(String newTitle, long changedAtMillis) {
        return new ConversationRecord(id, newTitle, systemPrompt, provider, model, createdAtMillis, changedAtMillis, branch, cacheKey, owner);
    }
}
