package dev.skillforge.server.conversation;

import dev.skillforge.server.store.ConversationStore;
import dev.skillforge.server.store.StoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.InstantSource;
import java.util.HashSet;
import java.util.Set;

/**
 * Keeps the leases of the conversations this instance holds in memory: each {@link #renew()}
 * extends them all in one store call, hands over (when idle) those another instance asked for, and
 * drops the copies whose lease was lost while this instance could not renew (after a partition or a
 * long pause), so no turn ever runs again from a copy another instance may have moved on. A lease
 * the store does not have because the conversation's creation is not written yet (the database
 * cannot write) is not lost ({@link LeaseFinding}).
 */
final class LeaseKeeper {

    private static final Logger log = LoggerFactory.getLogger(LeaseKeeper.class);

    private final ConversationStore store;
    private final String owner;
    private final HotConversations hot;
    private final Duration ttl;
    private final InstantSource clock;

    LeaseKeeper(ConversationStore store, String owner, HotConversations hot, Duration ttl, InstantSource clock) {
        this.store = store;
        this.owner = owner;
        this.hot = hot;
        this.ttl = ttl;
        this.clock = clock;
    }

    /** One round of renewal. A store failure is logged at DEBUG and retried next round (the leases last {@code ttl}). */
    void renew() {
        Set<String> ids = hot.ids();
        if (ids.isEmpty()) {
            return;
        }
        // Asked before the renewal: a creation written after it began is not seen by it.
        Set<String> stored = new HashSet<>();
        ids.forEach(id -> hot.get(id).filter(HotConversation::stored).ifPresent(conversation -> stored.add(id)));
        ConversationStore.Renewal renewal;
        long now = clock.millis();
        try {
            renewal = store.renewLeases(owner, ids, now, ttl.toMillis());
        } catch (StoreException e) {
            log.debug("lease renewal failed: {}", e.getMessage());
            return;
        }
        for (String id : ids) {
            hot.get(id).ifPresent(conversation -> {
                switch (LeaseFinding.of(renewal, id, stored.contains(id))) {
                    case HELD -> {
                        conversation.leaseRenewedUntil(now + ttl.toMillis());
                        if (renewal.requested().contains(id)) {
                            hot.letGo(conversation, "handed over to another instance");
                        }
                    }
                    case NOT_STORED_YET -> {
                        // the writer says why the store cannot write
                    }
                    case LOST -> hot.lost(conversation, LeaseFinding.whyLost(renewal, id));
                }
            });
        }
    }
}
