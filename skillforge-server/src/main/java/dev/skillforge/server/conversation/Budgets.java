package dev.skillforge.server.conversation;

import dev.skillforge.core.agent.AgentEvent;
import dev.skillforge.core.agent.EventSink;
import dev.skillforge.server.price.TokenPrices;

import java.util.Optional;

/**
 * What each person may spend on models in a month, and what they spent: a turn starts only while its person has
 * room left, and once it ends, what it cost (when the model's prices are known) counts against them. A turn that
 * runs while the budget is reached still ends; the next one is refused.
 */
public interface Budgets {

    /** No budgets: every turn may start, nothing is counted (a server without people). */
    Budgets NONE = new Budgets() {
        @Override
        public void requireRoom(String personId) {
        }

        @Override
        public void spent(String personId, double dollars) {
        }
    };

    /** @throws ConversationException BUDGET_SPENT saying what was spent of how much, and when the budget renews */
    void requireRoom(String personId);

    /** A turn of {@code personId} cost {@code dollars}; never fails (a failure is logged: the turn is over either way). */
    void spent(String personId, double dollars);

    /**
     * {@code observer}, and at the end of the turn, what it cost (when {@code prices} are known) counted against
     * {@code personId}.
     */
    default EventSink counting(String personId, Optional<TokenPrices> prices, EventSink observer) {
        if (prices.isEmpty()) {
            return observer;
        }
        return event -> {
            observer.accept(event);
            if (event instanceof AgentEvent.Done done) {
                prices.get().cost(done.totals()).ifPresent(dollars -> spent(personId, dollars));
            }
        };
    }
}
