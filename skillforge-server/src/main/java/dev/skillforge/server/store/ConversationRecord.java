package dev.skillforge.server.store;

/**
 * A stored conversation. The system prompt, provider and model are fixed when it starts (a prompt
 * cache cannot carry over a change); the title may change.
 *
 * @param forkedFrom the conversation this one was copied from up to an edited message, or {@code null}
 * @param cacheKey   the key its model calls go under (its prefix guard's, and the provider's cache routing):
 *                   its own id, or for a fork {@code ROOT/ID}, whose part before the slash routes the provider's
 *                   cache to where the shared prefix is ({@code ModelCall#routingKey})
 * @param owner      the id of the person whose conversation it is ({@link dev.skillforge.server.people.Caller}); for
 *                   anyone else it does not exist
 */
public record ConversationRecord(String id, String title, String systemPrompt, String provider, String model,
                                 long createdAtMillis, long updatedAtMillis, String forkedFrom, String cacheKey, String owner) {

    /** A conversation of {@code owner} that is nobody's fork: its cache key is its id. */
    public ConversationRecord(String id, String title, String systemPrompt, String provider, String model,
                              long createdAtMillis, long updatedAtMillis, String owner) {
        this(id, title, systemPrompt, provider, model, createdAtMillis, updatedAtMillis, null, id, owner);
    }

    public ConversationRecord {
        if (cacheKey == null) {
            cacheKey = id;
        }
        java.util.Objects.requireNonNull(owner, "owner");
    }

    /** This conversation with another title, changed at {@code updatedAtMillis}. */
    public ConversationRecord withTitle(String newTitle, long changedAtMillis) {
        return new ConversationRecord(id, newTitle, systemPrompt, provider, model, createdAtMillis, changedAtMillis, forkedFrom, cacheKey,
                owner);
    }
}
