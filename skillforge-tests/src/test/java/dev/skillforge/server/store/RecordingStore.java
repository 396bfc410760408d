package dev.skillforge.server.store;

import dev.skillforge.server.search.SearchQuery;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** A real store that also remembers every batch it applied successfully, in order: for order checks. */
final class RecordingStore implements ConversationStore {

    private final ConversationStore delegate;
    private final List<List<Write>> batches = new ArrayList<>();

    RecordingStore(ConversationStore delegate) {
        this.delegate = delegate;
    }

    synchronized List<List<Write>> batches() {
        return List.copyOf(batches);
    }

    synchronized List<Write> applied() {
        return batches.stream().flatMap(List::stream).toList();
    }

    @Override
    public Set<Fenced> apply(List<Write> batch) {
        Set<Fenced> fenced = delegate.apply(batch);
        synchronized (this) {
            batches.add(List.copyOf(batch));
        }
        return fenced;
    }

    @Override
    public Optional<ConversationRecord> conversation(String id) {
        return delegate.conversation(id);
    }

    @Override
    public Optional<ConversationRecord> conversation(String owner, String id) {
        return delegate.conversation(owner, id);
    }

    @Override
    public List<FoundConversation> search(String owner, SearchQuery query, int limit) {
        return delegate.search(owner, query, limit);
    }

    @Override
    public List<ConversationRecord> conversations(String owner, int limit, int offset) {
        return delegate.conversations(owner, limit, offset);
    }

    @Override
    public long count(String owner) {
        return delegate.count(owner);
    }

    @Override
    public List<BranchRecord> thread(String owner, String threadId) {
        return delegate.thread(owner, threadId);
    }

    @Override
    public Map<String, String> userMessages(List<String> conversationIds, int turn) {
        return delegate.userMessages(conversationIds, turn);
    }

    @Override
    public List<StoredEntry> entries(String conversationId) {
        return delegate.entries(conversationId);
    }

    @Override
    public Optional<byte[]> attachmentFile(String conversationId, String sha256) {
        return delegate.attachmentFile(conversationId, sha256);
    }

    @Override
    public List<TurnRecord> turns(String conversationId) {
        return delegate.turns(conversationId);
    }

    @Override
    public Lease acquireLease(String conversationId, String owner, long nowMillis, long ttlMillis) {
        return delegate.acquireLease(conversationId, owner, nowMillis, ttlMillis);
    }

    @Override
    public Renewal renewLeases(String owner, Set<String> conversationIds, long nowMillis, long ttlMillis) {
        return delegate.renewLeases(owner, conversationIds, nowMillis, ttlMillis);
    }

    @Override
    public Set<String> leasesHeldBy(String owner) {
        return delegate.leasesHeldBy(owner);
    }

    @Override
    public Set<String> leasesRequestedFrom(String owner) {
        return delegate.leasesRequestedFrom(owner);
    }

    @Override
    public void releaseLease(String conversationId, String owner) {
        delegate.releaseLease(conversationId, owner);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
