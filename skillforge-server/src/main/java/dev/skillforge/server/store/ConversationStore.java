package dev.skillforge.server.store;

import dev.skillforge.server.search.SearchQuery;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Durable conversations: one contract, two implementations tested by one conformance suite (the
 * embedded SQLite file by default, PostgreSQL for real deployments). Calls are synchronous and may
 * take a database round trip: the server makes them from its background writer and when it loads
 * a conversation that is not in memory, never on the path of a turn on a hot conversation.
 *
 * <p>Append-only: entries are inserted once and never updated, deleted or re-inserted (only a
 * whole conversation can be deleted). Every method fails with {@link StoreException} when the
 * database cannot be reached or refuses.
 */
public interface ConversationStore extends AutoCloseable {

    /**
     * Applies the writes in order in one transaction: all or none. Idempotent, so the writer can
     * retry a batch whose commit it did not see confirmed.
     *
     * <p>Fenced writes ({@link Write#epoch()}) whose epoch is no longer the conversation's held
     * lease are not applied (the rest of the batch is): the lease was taken over, and the instance
     * that made them must stop.
     *
     * @return the conversations (with the stale epoch) whose writes were refused so, empty normally
     */
    Set<Fenced> apply(List<Write> batch);

    /** Writes of {@code conversationId} made under lease epoch {@code epoch} were refused: another instance holds it now. */
    record Fenced(String conversationId, long epoch) {
    }

    /** The conversation {@code id}, whoever owns it (leases, recovery and the fleet, never a door's answer). */
    Optional<ConversationRecord> conversation(String id);

    /** The conversation {@code id} if {@code owner} owns it: another person's is not found, as a missing one is. */
    Optional<ConversationRecord> conversation(String owner, String id);

    /**
     * The threads of {@code owner}, one row each: the branch selected last ({@link Write.SelectBranch}; ties by id), with
     * the thread's last activity (its branches' latest {@code updatedAtMillis}) as its own; most recently active first
     * (ties by id), skipping {@code offset}.
     */
    List<ConversationRecord> conversations(String owner, int limit, int offset);

    /**
     * The conversations of {@code owner} that have every term of {@code query} somewhere (the title, a message, an
     * answer, command output, an attached document's name or text; {@link SearchQuery} says how a term matches),
     * most recently updated first, each with the first few of its texts that hold a term. Full-text search in the
     * database's indexes: SQLite's FTS5, PostgreSQL's tsvector; each text is searched in its first 100,000 characters.
     * One row per thread, as {@link #conversations} has: of the branches that match, the one selected last.
     */
    List<FoundConversation> search(String owner, SearchQuery query, int limit);

    /** How many threads (rows of {@link #conversations}) {@code owner} has. */
    long count(String owner);

    /** The branches of {@code owner}'s thread {@code threadId}, oldest first (ties by id); none for another person's thread. */
    List<BranchRecord> thread(String owner, String threadId);

    /** The person's message of turn {@code turn} of each of {@code conversationIds} that has that turn, by conversation id. */
    Map<String, String> userMessages(List<String> conversationIds, int turn);

    /** The entries of a conversation in {@code seq} order, each with its attachment references. */
    List<StoredEntry> entries(String conversationId);

    /** The bytes of a file attached in a conversation, by its SHA-256 (lowercase hex), if stored. */
    Optional<byte[]> attachmentFile(String conversationId, String sha256);

    /** The turns of a conversation in turn order. */
    List<TurnRecord> turns(String conversationId);

    /**
     * Takes the lease of a conversation for {@code owner} until {@code now + ttl}, if nobody else
     * holds a lease that is still valid at {@code now}; otherwise records that {@code owner} asks
     * for it and says who holds it.
     */
    Lease acquireLease(String conversationId, String owner, long nowMillis, long ttlMillis);

    /**
     * Extends the leases {@code owner} still holds among {@code conversationIds} to
     * {@code now + ttl}.
     *
     * @return the conversations among them that {@code owner} still holds, each with whether
     *         another instance asked for it, and those that have no lease at all
     */
    Renewal renewLeases(String owner, Set<String> conversationIds, long nowMillis, long ttlMillis);

    /**
     * The conversations whose lease is recorded for {@code owner}, still valid or expired (a lease
     * nobody took over stays recorded for its last holder).
     */
    Set<String> leasesHeldBy(String owner);

    /**
     * The conversations whose lease is recorded for {@code owner} and that another instance asked for: what a renewal
     * reports as {@link Renewal#requested()}, found without extending anything (one indexed read, however many
     * leases {@code owner} holds).
     */
    Set<String> leasesRequestedFrom(String owner);

    /** Gives the lease up (if {@code owner} holds it). */
    void releaseLease(String conversationId, String owner);

    /**
     * What a renewal found.
     *
     * @param held      the leases still held (and now extended)
     * @param requested those of them another instance asked for
     * @param unleased  the conversations with no lease at all: not in the store (their creation not written yet, or
     *                  deleted), which is not the same as a lease another instance holds
     */
    record Renewal(Set<String> held, Set<String> requested, Set<String> unleased) {
    }

    @Override
    void close();
}
