package dev.skillforge.server.conversation;

import dev.skillforge.server.store.BranchRecord;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the versions of a shown branch diverge (design.md, "Branches"): for each of its turns that other branches of
 * its thread have in another version after the same turns before it, the versions in order and which one is shown.
 *
 * <p>A version of turn {@code t} is the branch that made it (its <em>maker</em>): a branch made its turns from the one it
 * was forked at on; an earlier turn it holds is a copy of its parent's, whose maker is found the same way. Two branches
 * share turn {@code t} when it has one maker in both. Versions are in the order they were made; each opens as the branch
 * selected last among those that hold it after the shown branch's turns before {@code t} (so a switch comes back to
 * where the person was in that version), the shown one as itself. A branch that has not reached turn {@code t} (a fork
 * whose first message was never sent) is not a version of it.
 */
final class BranchSwitches {

    /**
     * A switch on turn {@code turn}: the branch ids to open for each version, in order, which one is shown, and the maker
     * of each version (whose message is that version's).
     */
    record Switch(int turn, List<String> ids, int index, List<String> makers) {
    }

    private final Map<String, BranchRecord> byId = new HashMap<>();
    private final List<BranchRecord> branches;

    private BranchSwitches(List<BranchRecord> branches) {
        this.branches = branches;
        branches.forEach(branch -> byId.put(branch.id(), branch));
    }

    /**
     * The switches of {@code shown} among the branches of its thread (itself included, as the caller knows it now: its
     * turns may be ahead of the store's), on the turns where there is more than one version.
     */
    static List<Switch> of(BranchRecord shown, List<BranchRecord> thread) {
        List<BranchRecord> branches = new ArrayList<>(thread.stream().filter(b -> !b.id().equals(shown.id())).toList());
        branches.add(shown);
        return new BranchSwitches(branches).switchesOf(shown);
    }

    private List<Switch> switchesOf(BranchRecord shown) {
        List<Switch> found = new ArrayList<>();
        List<BranchRecord> sameSoFar = branches; // those that share every turn of the shown one before turn t
        for (int t = 0; t < shown.turns() && sameSoFar.size() > 1; t++) {
            int turn = t;
            Map<String, List<BranchRecord>> versions = new LinkedHashMap<>();
            sameSoFar.stream().filter(b -> b.turns() > turn).forEach(b -> versions.computeIfAbsent(maker(b, turn), m -> new ArrayList<>()).add(b));
            String shownMaker = maker(shown, turn);
            if (versions.size() > 1) {
                List<String> makers = versions.keySet().stream()
                        .sorted(Comparator.comparing((String maker) -> made(versions.get(maker))).thenComparing(maker -> maker)).toList();
                List<String> ids = makers.stream().map(maker -> maker.equals(shownMaker) ? shown.id() : selectedLast(versions.get(maker))).toList();
                found.add(new Switch(turn, ids, makers.indexOf(shownMaker), makers));
            }
            sameSoFar = versions.getOrDefault(shownMaker, List.of());
        }
        return found;
    }

    /** The branch that made turn {@code turn} of {@code branch}; a parent no longer stored stands for itself. */
    private String maker(BranchRecord branch, int turn) {
        BranchRecord at = branch;
        while (at.forkedFrom() != null && turn < at.forkedAtTurn()) {
            BranchRecord parent = byId.get(at.forkedFrom());
            if (parent == null) {
                return at.forkedFrom();
            }
            at = parent;
        }
        return at.id();
    }

    /** When a version was made: its first branch's creation (the maker, unless it is gone). */
    private static long made(List<BranchRecord> version) {
        return version.stream().mapToLong(BranchRecord::createdAtMillis).min().orElseThrow();
    }

    private static String selectedLast(List<BranchRecord> version) {
        return version.stream().max(Comparator.comparingLong(BranchRecord::selectedAtMillis).thenComparing(BranchRecord::createdAtMillis)
                .thenComparing(BranchRecord::id, Comparator.reverseOrder())).map(BranchRecord::id).orElseThrow();
    }
}
