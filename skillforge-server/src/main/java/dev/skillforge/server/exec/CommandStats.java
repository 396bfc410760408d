package dev.skillforge.server.exec;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** Counts what happened to the commands the model wrote (shown by an authenticated {@code GET /healthz}). */
public final class CommandStats {

    /** The outcomes counted. */
    public enum Outcome {
        /** A {@code skill} command, run in-process. */
        SKILL,
        /** A program ran and exited 0. */
        SUCCEEDED,
        /** A program ran and exited with another code. */
        FAILED,
        /** Refused before anything started: not allowed, shell syntax, a path outside, a link out. */
        REFUSED,
        /** Refused because {@code FORGE_MAX_CONCURRENT_COMMANDS} were already running. */
        BUSY,
        /** Killed at the time limit. */
        TIMED_OUT,
        /** Killed when its output passed the cap. */
        OUTPUT_CAPPED,
        /** Killed because the run was stopped. */
        STOPPED,
        /** Allowed, but the program could not be started. */
        START_FAILED
    }

    private final Map<Outcome, AtomicLong> counts = new LinkedHashMap<>();

    public CommandStats() {
        for (Outcome outcome : Outcome.values()) {
            counts.put(outcome, new AtomicLong());
        }
    }

    void count(Outcome outcome) {
        counts.get(outcome).incrementAndGet();
    }

    public long get(Outcome outcome) {
        return counts.get(outcome).get();
    }

    /** Every count, by outcome name in lower case ({@code refused}, {@code timed_out}…). */
    public Map<String, Long> snapshot() {
        Map<String, Long> snapshot = new LinkedHashMap<>();
        counts.forEach((outcome, count) -> snapshot.put(outcome.name().toLowerCase(java.util.Locale.ROOT), count.get()));
        return snapshot;
    }
}
