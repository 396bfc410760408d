package dev.skillforge.server.conversation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.server.price.TokenPrices;
import dev.skillforge.server.store.ConversationRecord;
import dev.skillforge.server.store.StoredEntry;
import dev.skillforge.server.store.TurnRecord;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The conversation view's money: each iteration's and turn's {@code costUsd} from its stored usage, the
 * conversation's the sum of its turns', left out (unknown, never 0) where a turn's figures or the prices do not say.
 */
class ConversationSnapshotCostTest {

    private static final TokenPrices PRICES = new TokenPrices(2.00, 0.20, 2.50, 10.00);
    private static final ConversationRecord RECORD = new ConversationRecord("c1", "t", "sys", "claude", "claude-sonnet-5-5", 1, 2, "local");
    private static final List<StoredEntry> ENTRIES = List.of(
            new StoredEntry("c1", 0, 0, "user", "hi", null, null, 1), new StoredEntry("c1", 1, 0, "assistant", "hello", null, null, 1),
            new StoredEntry("c1", 2, 1, "user", "more", null, null, 1), new StoredEntry("c1", 3, 1, "assistant", "sure", null, null, 1));
    private static final String PRICED = "{\"status\":\"complete\",\"usage\":{\"inputTokens\":10000,\"outputTokens\":500,"
            + "\"cacheReadTokens\":6000,\"cacheWriteTokens\":3000},\"perIteration\":[{\"iteration\":0,\"usage\":{\"inputTokens\":10000,"
            + "\"outputTokens\":500,\"cacheReadTokens\":6000,\"cacheWriteTokens\":3000}}]}";

    @Test
    void eachTurnIsPricedFromItsUsageWritesIncludedAndTheConversationIsTheSum() {
        JsonNode json = snapshot(PRICED, PRICED).toJson(PRICES);

        JsonNode turn = json.at("/turns/0/usage");
        assertThat(turn.path("costUsd").asDouble()).isCloseTo(0.0157, within(1e-9)); // 1,000 plain, 6,000 read, 3,000 written, 500 out
        assertThat(json.at("/turns/0/iterations/0/usage/costUsd").asDouble()).isCloseTo(0.0157, within(1e-9));
        assertThat(json.at("/usage/costUsd").asDouble()).isCloseTo(0.0314, within(1e-9));
        assertThat(json.at("/usage/cacheWriteTokens").asLong()).isEqualTo(6000);
    }

    @Test
    void aTurnWhoseWritesAreUnknownHasNoCostAndNeitherHasTheConversation() {
        String noWrites = "{\"status\":\"complete\",\"usage\":{\"inputTokens\":10000,\"outputTokens\":500,\"cacheReadTokens\":6000}}";

        JsonNode json = snapshot(PRICED, noWrites).toJson(PRICES);

        assertThat(json.at("/turns/0/usage").has("costUsd")).isTrue();
        assertThat(json.at("/turns/1/usage").has("costUsd")).isFalse();
        assertThat(json.path("usage").has("costUsd")).isFalse();
    }

    @Test
    void withoutPricesNothingIsPricedAndTheTokensStayAsTheyWere() {
        JsonNode json = snapshot(PRICED, PRICED).toJson(null);

        assertThat(json.at("/turns/0/usage").has("costUsd")).isFalse();
        assertThat(json.path("usage").has("costUsd")).isFalse();
        assertThat(json.at("/usage/inputTokens").asLong()).isEqualTo(20000);
    }

    private static ConversationSnapshot snapshot(String turn0, String turn1) {
        return ConversationSnapshot.of(RECORD, ENTRIES, List.of(new TurnRecord("c1", 0, "complete", 1, 2L, turn0),
                new TurnRecord("c1", 1, "complete", 3, 4L, turn1)), false);
    }
}
