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
 * Keeps the leases of the conversations this instance holds in memory. Every {@link #renew()} hands over (when idle)
 * those another instance asked for; once a third of the lease time has passed since the last extension, it extends
 * them all in one store call, which also drops the copies whose lease was lost while this instance could not renew
 * (after a partition or a long pause), so no turn ever runs again from a copy another instance may have moved on. In
 * the rounds between, asking which leases are wanted is one small indexed read, where extending is a statement over
 * every lease held: at a thousand conversations in memory, five times a second, that was most of the store's work
 * when nothing happened. A lease the store does not have because the conversation's creation is not written yet (the
 * database cannot write) is not lost ({@link LeaseFinding}).
 */
final class LeaseKeeper {

    private static final Logger log = LoggerFactory.getLogger(LeaseKeeper.class);

    private final ConversationStore store;
    private final String owner;
    private final HotConversations hot;
    private final Duration ttl;
    private final InstantSource clock;
    /** When the leases are to be extended next (this instance's clock); only the keeper's thread reads and writes it. */
    private long nextExtension;

    LeaseKeeper(ConversationStore store, String owner, HotConversations hot, Duration ttl, InstantSource clock) {
        this.store = store;
        this.owner = owner;
        this.hot = hot;
        this.ttl = ttl;
        this.clock = clock;
    }

    /**
     * One round: the leases extended if a third of their time has passed since the last extension, else only those
     * asked for handed over. A store failure is logged at DEBUG and retried next round (the leases last {@code ttl}).
     */
    void renew() {
        Set<String> ids = hot.ids();
        if (ids.isEmpty()) {
            return;
        }
        if (clock.millis() < nextExtension) {
            handOverRequested(ids);
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
        nextExtension = now + ttl.toMillis() / 3;
        for (String id : ids) {
            hot.get(id).ifPresent(conversation -> {
                switch (LeaseFinding.of(renewal, id, stored.contains(id))) {
                    case HELD -> {
                        conversation.leaseRenewedUntil(now + ttl.toMillis());
                        if (renewal.requested().contains(id)) {
                            handOver(conversation);
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

    /** Lets go of the idle conversations among {@code held} that another instance asked for. */
    private void handOverRequested(Set<String> held) {
        Set<String> requested;
        try {
            requested = store.leasesRequestedFrom(owner);
        } catch (StoreException e) {
            log.debug("reading the lease requests failed: {}", e.getMessage());
            return;
        }
        for (String id : requested) {
            if (held.contains(id)) {
                hot.get(id).ifPresent(this::handOver);
            }
        }
    }

    /** Lets {@code conversation} go if it is idle: another instance asked for it. */
    private void handOver(HotConversation conversation) {
        hot.letGo(conversation, "handed over to another instance");
    }
}
