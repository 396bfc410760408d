package dev.skillforge.server.conversation;

import dev.skillforge.server.store.BranchRecord;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which versions a shown branch switches between, on a thread of: X (3 turns); Y, X's turn 1 edited; Z, Y's turn 1
 * regenerated; W, X's turn 2 regenerated (selected after X); E, X's turn 1 edited but never sent.
 */
class BranchSwitchesTest {

    static final BranchRecord X = new BranchRecord("x", null, 0, 100, 100, 3);
    static final BranchRecord Y = new BranchRecord("y", "x", 1, 200, 200, 2);
    static final BranchRecord Z = new BranchRecord("z", "y", 1, 300, 300, 2);
    static final BranchRecord W = new BranchRecord("w", "x", 2, 400, 400, 3);
    static final BranchRecord E = new BranchRecord("e", "x", 1, 500, 500, 1);
    static final List<BranchRecord> THREAD = List.of(X, Y, Z, W, E);

    @Test
    void aConversationNobodyForkedHasNoSwitch() {
        assertThat(BranchSwitches.of(X, List.of(X))).isEmpty();
        assertThat(BranchSwitches.of(X, List.of())).as("not stored yet: the shown one alone").isEmpty();
    }

    @Test
    void eachVersionOfATurnIsOneEntryInTheOrderTheyWereMadeAndOpensWhereThePersonWasInIt() {
        assertThat(BranchSwitches.of(Z, THREAD)).containsExactly(new BranchSwitches.Switch(1, List.of("w", "y", "z"), 2, List.of("x", "y", "z")));
        assertThat(BranchSwitches.of(Y, THREAD)).as("X's version opens as W, the branch of it selected last")
                .containsExactly(new BranchSwitches.Switch(1, List.of("w", "y", "z"), 1, List.of("x", "y", "z")));
    }

    @Test
    void theVersionsOfALaterTurnAreThoseAfterTheSameTurnsBeforeIt() {
        assertThat(BranchSwitches.of(X, THREAD)).containsExactly(
                new BranchSwitches.Switch(1, List.of("x", "y", "z"), 0, List.of("x", "y", "z")),
                new BranchSwitches.Switch(2, List.of("x", "w"), 0, List.of("x", "w")));
        assertThat(BranchSwitches.of(W, THREAD)).containsExactly(
                new BranchSwitches.Switch(1, List.of("w", "y", "z"), 0, List.of("x", "y", "z")),
                new BranchSwitches.Switch(2, List.of("x", "w"), 1, List.of("x", "w")));
    }

    @Test
    void aForkWhoseFirstMessageWasNeverSentIsNoVersionButShowsTheOthersItShares() {
        assertThat(BranchSwitches.of(E, THREAD)).as("it has turn 0 only, which nobody changed").isEmpty();
        BranchRecord sent = new BranchRecord("e", "x", 1, 500, 500, 2);
        assertThat(BranchSwitches.of(sent, THREAD)).as("once it has its turn, as the caller knows it")
                .containsExactly(new BranchSwitches.Switch(1, List.of("w", "y", "z", "e"), 3, List.of("x", "y", "z", "e")));
    }

    @Test
    void aBranchWhoseParentIsGoneStillHasItsVersions() {
        List<BranchRecord> withoutX = List.of(Y, Z, W);
        assertThat(BranchSwitches.of(Z, withoutX)).as("X's version, made when W was, comes last")
                .containsExactly(new BranchSwitches.Switch(1, List.of("y", "z", "w"), 1, List.of("y", "z", "x")));
    }
}
