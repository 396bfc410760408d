package dev.skillforge.server.store;

/**
 * What is known about one turn: its status ({@code running}, {@code complete}, {@code cancelled},
 * {@code failed}, {@code interrupted}), when it started and ended, and a JSON summary written when it
 * ends (iterations, commands with their status and results, usage, stop reason or error) from
 * which the page's turn view is built. A turn is written as {@code running} when it starts, so a
 * crash leaves it visibly unfinished, never looking complete.
 */
public record TurnRecord(String conversationId, int turn, String status, long startedAtMillis, Long endedAtMillis,
                         String summaryJson) {

    public static final String RUNNING = "running";
    public static final String INTERRUPTED = "interrupted";
}
