package dev.skillforge.server.access;

import dev.skillforge.server.conversation.ConversationException;
import dev.skillforge.server.store.Database;
import dev.skillforge.server.store.JdbcPeopleStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A turn starts while its person has room in their budget; without a budget the spend is not even read. */
class SpendingTest {

    private static final InstantSource NOVEMBER = InstantSource.fixed(Instant.parse("2026-11-29T12:00:00Z"));

    @Test
    void aSpentBudgetRefusesTheTurnAndSaysWhenItRenews(@TempDir Path folder) {
        try (Database database = Database.open(null, null, null, folder)) {
            JdbcPeopleStore people = new JdbcPeopleStore(database);
            Spending spending = new Spending(people, NOVEMBER, person -> OptionalLong.of(2_000_000));
            spending.spent("ada", 1.5);
            spending.requireRoom("ada"); // $1.50 of $2.00: room left

            spending.spent("ada", 0.5);
            assertThatThrownBy(() -> spending.requireRoom("ada"))
                    .isInstanceOfSatisfying(ConversationException.class,
                            e -> assertThat(e.kind()).isEqualTo(ConversationException.Kind.BUDGET_SPENT))
                    .hasMessageContaining("monthly budget of $2.00 is spent ($2.00 this month); it renews on 2026-12-01");
        }
    }

    @Test
    void withoutABudgetTheSpendIsNotReadSoAnUnreadableDatabaseHoldsNoTurnBack(@TempDir Path folder) {
        Database database = Database.open(null, null, null, folder);
        JdbcPeopleStore people = new JdbcPeopleStore(database);
        database.close(); // every read fails from now on

        new Spending(people, NOVEMBER, person -> OptionalLong.empty()).requireRoom("ada");

        assertThatThrownBy(() -> new Spending(people, NOVEMBER, person -> OptionalLong.of(2_000_000)).requireRoom("ada"))
                .isInstanceOfSatisfying(ConversationException.class,
                        e -> assertThat(e.kind()).isEqualTo(ConversationException.Kind.UNAVAILABLE))
                .hasMessageContaining("Your budget cannot be checked right now");
    }
}
