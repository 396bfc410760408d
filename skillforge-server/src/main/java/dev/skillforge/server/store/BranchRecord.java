package dev.skillforge.server.store;

/**
 * One branch of a thread as the thread's versions are worked out from (design.md, "Branches"): where it was forked, when
 * it was made and last shown, and how many turns it has.
 *
 * @param forkedFrom     the branch it was copied from, or {@code null} for the thread's first
 * @param forkedAtTurn   its first turn of its own (0 for the thread's first)
 * @param selectedAtMillis when it was last shown: made, switched to, or given a turn
 * @param turns          how many turns it has (they are numbered from 0), its copied ones included
 */
public record BranchRecord(String id, String forkedFrom, int forkedAtTurn, long createdAtMillis, long selectedAtMillis, int turns) {
}
