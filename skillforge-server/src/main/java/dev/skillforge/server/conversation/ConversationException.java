package dev.skillforge.server.conversation;

import dev.skillforge.core.transcript.StorableText;
import dev.skillforge.server.store.StoreException;
import org.slf4j.LoggerFactory;

/** A conversation request that cannot be served; {@link Kind} says why, in terms an API maps to a status. */
public final class ConversationException extends RuntimeException {

    public enum Kind {
        /** No conversation with this id (or the id is malformed: both look the same from outside). */
        NOT_FOUND,
        /** A turn of this conversation is running here or on another instance. */
        BUSY,
        /** The request itself is wrong. */
        INVALID,
        /** The new message is over {@link MessageLimit#MAX_BYTES}. */
        TOO_LARGE,
        /** The database is needed for this and cannot be reached. */
        UNAVAILABLE,
        /** The conversation's provider is not configured on this server (any more): start a new conversation. */
        PROVIDER_GONE,
        /** This instance is stopping (a deploy): it finishes its running turns but starts none; another instance will. */
        STOPPING,
        /** The person's monthly budget is spent: no turn starts (nothing is sent to a model) until it renews or is raised. */
        BUDGET_SPENT
    }

    private final Kind kind;

    public ConversationException(Kind kind, String message) {
        super(message, null, false, false);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }

    static ConversationException notFound(String id) {
        return new ConversationException(Kind.NOT_FOUND, "No conversation with id " + StorableText.abbreviate(id, 64));
    }

    /** The store failed: logged here (with its reason), answered without it. */
    static ConversationException unavailable(StoreException cause) {
        LoggerFactory.getLogger(ConversationException.class).warn("storage unavailable: {}", cause.getMessage());
        return new ConversationException(Kind.UNAVAILABLE, "The conversation store is unavailable right now; try again shortly");
    }
}
