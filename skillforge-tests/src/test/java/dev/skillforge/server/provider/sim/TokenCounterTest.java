package dev.skillforge.server.provider.sim;

import dev.skillforge.server.cache.TokenEstimate;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The simulation's prompt tokens: message by message, each message's tokens remembered by its text, so a request
 * that repeats a conversation's earlier messages gets exactly the tokens a fresh count gives.
 */
class TokenCounterTest {

    private static int[] fresh(TokenCounter.Message message) {
        return TokenEstimate.tokens("<|" + message.role() + "|>\n" + message.content() + "<|end|>\n");
    }

    @Test
    void aPromptIsItsMessagesTokensInOrderWhetherTheyWereSeenBeforeOrNot() {
        TokenCounter.Message system = new TokenCounter.Message("system", "You forge skills.");
        TokenCounter.Message user = new TokenCounter.Message("user", "Make a skill from https://example.com/page, «please».");
        int[] expected = IntStream.concat(IntStream.of(fresh(system)), IntStream.of(fresh(user))).toArray();

        int[] first = TokenCounter.promptTokens(List.of(system, user));
        int[] again = TokenCounter.promptTokens(List.of(new TokenCounter.Message("system", new String("You forge skills.")), user));

        assertThat(first).isEqualTo(expected);
        assertThat(again).isEqualTo(expected);
        first[0] = -1; // a caller's copy: what is remembered stays as it was
        assertThat(TokenCounter.promptTokens(List.of(system, user))).isEqualTo(expected);
    }

    @Test
    void onlyTheMostRecentlyUsedMessagesAreRememberedAndAForgottenOneCountsTheSame() {
        String early = "the first message of a long conversation";
        int[] tokens = TokenCounter.encode(early);
        for (int i = 0; i <= TokenCounter.REMEMBERED; i++) {
            TokenCounter.encode("message " + i);
        }
        assertThat(TokenCounter.encode(early)).isEqualTo(tokens).isNotSameAs(tokens);
    }
}
