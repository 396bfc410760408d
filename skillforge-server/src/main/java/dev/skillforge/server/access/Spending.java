package dev.skillforge.server.access;

import dev.skillforge.server.conversation.Budgets;
import dev.skillforge.server.conversation.ConversationException;
import dev.skillforge.server.store.PeopleStore;
import dev.skillforge.server.store.StoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.time.InstantSource;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * What each person spent on models by calendar month (UTC), counted from the costs the server computes at the end
 * of each turn (when the model's prices are known), and the budgets that hold them: a turn starts only while its
 * person spent less than their budget this month. The count is kept when conversations are deleted.
 */
public final class Spending implements Budgets {

    private static final Logger LOG = LoggerFactory.getLogger(Spending.class);

    /** What a person spent this month, of what budget, in millionths of a dollar, and when the month ends. */
    public record Month(long spentMicros, OptionalLong budgetMicros, Instant renewsAt) {
        /** What is left of the budget, if there is one; never below 0. */
        public OptionalLong leftMicros() {
            return budgetMicros.isPresent() ? OptionalLong.of(Math.max(0, budgetMicros.getAsLong() - spentMicros)) : OptionalLong.empty();
        }
    }

    private final PeopleStore people;
    private final InstantSource clock;
    private final Function<String, OptionalLong> budgetOf;

    /** @param budgetOf a person's monthly budget in millionths of a dollar, or empty for none */
    public Spending(PeopleStore people, InstantSource clock, Function<String, OptionalLong> budgetOf) {
        this.people = people;
        this.clock = clock;
        this.budgetOf = budgetOf;
    }

    /** What {@code personId} spent this month, and of which budget. */
    public Month month(String personId) {
        return month(personId, budgetOf.apply(personId));
    }

    private Month month(String personId, OptionalLong budgetMicros) {
        YearMonth month = thisMonth();
        return new Month(people.spentMicros(personId, month.toString()), budgetMicros,
                month.plusMonths(1).atDay(1).atStartOfDay().toInstant(ZoneOffset.UTC));
    }

    /** This month, {@code YYYY-MM}, UTC. */
    String monthName() {
        return thisMonth().toString();
    }

    private YearMonth thisMonth() {
        return YearMonth.from(clock.instant().atZone(ZoneOffset.UTC));
    }

    @Override
    public void requireRoom(String personId) {
        Month month;
        try {
            OptionalLong budget = budgetOf.apply(personId);
            if (budget.isEmpty()) {
                return; // no limit: the spend is not read (a query on every turn's start, 2 % of the server's CPU at load)
            }
            month = month(personId, budget);
        } catch (StoreException e) {
            LOG.warn("the spend of person {} could not be read: {}", personId, e.getMessage());
            throw new ConversationException(ConversationException.Kind.UNAVAILABLE, "Your budget cannot be checked right now (the"
                    + " database cannot be read); try again shortly. Nothing was sent to the model.");
        }
        if (month.spentMicros() >= month.budgetMicros().getAsLong()) {
            throw new ConversationException(ConversationException.Kind.BUDGET_SPENT, "Your monthly budget of "
                    + Dollars.of(month.budgetMicros().getAsLong()) + " is spent (" + Dollars.of(month.spentMicros())
                    + " this month); it renews on " + month.renewsAt().toString().substring(0, 10)
                    + ", or an admin can raise it. Nothing was sent to the model.");
        }
    }

    @Override
    public void spent(String personId, double dollars) {
        try {
            people.addSpend(personId, monthName(), Math.round(dollars * 1_000_000));
        } catch (StoreException e) {
            LOG.warn("a turn's cost of ${} was not counted for person {}: {}", dollars, personId, e.getMessage());
        }
    }
}
