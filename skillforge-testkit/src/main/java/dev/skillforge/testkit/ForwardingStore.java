package dev.skillforge.testkit;

import dev.skillforge.server.search.SearchQuery;
import dev.skillforge.server.store.BranchRecord;
import dev.skillforge.server.store.ConversationRecord;
import dev.skillforge.server.store.ConversationStore;
import dev.skillforge.server.store.FoundConversation;
import dev.skillforge.server.store.Lease;
import dev.skillforge.server.store.StoreException;
import dev.skillforge.server.store.StoredEntry;
import dev.skillforge.server.store.TurnRecord;
import dev.skillforge.server.store.Write;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A store that forwards every call to another one after {@link #beforeCall()}: the base of the test
 * and benchmark decorators (injected latency, simulated outages). {@link #close()} closes the
 * wrapped store without calling the hook.
 */
abstract class ForwardingStore implements ConversationStore {

    protected final ConversationStore delegate;

    public ForwardingStore(ConversationStore delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** Runs before every call but {@link #close()}; may throw {@link StoreException}. */
    protected abstract void beforeCall();

    @Override
    public Set<Fenced> apply(List<Write> batch) {
        beforeCall();
        return delegate.apply(batch);
    }

    @Override
    public Optional<ConversationRecord> conversation(String id) {
        beforeCall();
        return delegate.conversation(id);
    }

    @Override
    public Optional<ConversationRecord> conversation(String owner, String id) {
        beforeCall();
        return delegate.conversation(owner, id);
    }

    @Override
    public List<FoundConversation> search(String owner, SearchQuery query, int limit) {
        beforeCall();
        return delegate.search(owner, query, limit);
    }

    @Override
    public List<ConversationRecord> conversations(String owner, int limit, int offset) {
        beforeCall();
        return delegate.conversations(owner, limit, offset);
    }

    @Override
    public long count(String owner) {
        beforeCall();
        return delegate.count(owner);
    }

    @Override
    public List<BranchRecord> thread(String owner, String threadId) {
        beforeCall();
        return delegate.thread(owner, threadId);
    }

    @Override
    public Map<String, String> userMessages(List<String> conversationIds, int turn) {
        beforeCall();
        return delegate.userMessages(conversationIds, turn);
    }

    @Override
    public List<StoredEntry> entries(String conversationId) {
        beforeCall();
        return delegate.entries(conversationId);
    }

    @Override
    public Optional<byte[]> attachmentFile(String conversationId, String sha256) {
        beforeCall();
        return delegate.attachmentFile(conversationId, sha256);
    }

    @Override
    public List<TurnRecord> turns(String conversationId) {
        beforeCall();
        return delegate.turns(conversationId);
    }

    @Override
    public Lease acquireLease(String conversationId, String owner, long nowMillis, long ttlMillis) {
        beforeCall();
        return delegate.acquireLease(conversationId, owner, nowMillis, ttlMillis);
    }

    @Override
    public Renewal renewLeases(String owner, Set<String> conversationIds, long nowMillis, long ttlMillis) {
        beforeCall();
        return delegate.renewLeases(owner, conversationIds, nowMillis, ttlMillis);
    }

    @Override
    public Set<String> leasesHeldBy(String owner) {
        beforeCall();
        return delegate.leasesHeldBy(owner);
    }

    @Override
    public Set<String> leasesRequestedFrom(String owner) {
        beforeCall();
        return delegate.leasesRequestedFrom(owner);
    }

    @Override
    public void releaseLease(String conversationId, String owner) {
        beforeCall();
        delegate.releaseLease(conversationId, owner);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
