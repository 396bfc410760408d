package dev.skillforge.server.store;

/**
 * A stored conversation. The system prompt, provider and model are fixed when it starts (a prompt
 * cache cannot carry over a change); the title may change.
 */
public record ConversationRecord(String id, String title, String systemPrompt, String provider, String model,
                                 long createdAtMillis, long updatedAtMillis) {

    /** This conversation with another title, changed at {@code updatedAtMillis}. */
    public ConversationRecord withTitle(String newTitle, long changedAtMillis) {
        return new ConversationRecord(id, newTitle, systemPrompt, provider, model, createdAtMillis, changedAtMillis);
    }
}
