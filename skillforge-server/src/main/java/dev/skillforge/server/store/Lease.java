package dev.skillforge.server.store;

/**
 * The answer to a lease request. An instance may run turns on, and append to, a conversation only
 * while it holds the conversation's lease; so two instances never interleave a conversation.
 */
public sealed interface Lease {

    /** This instance holds the lease until {@code expiresAtMillis}; {@code epoch} grows with each change of holder. */
    record Held(String conversationId, long epoch, long expiresAtMillis) implements Lease {
    }

    /** Another instance holds it; it has been asked to release it. */
    record HeldElsewhere(String conversationId, String owner, long expiresAtMillis) implements Lease {
    }
}
