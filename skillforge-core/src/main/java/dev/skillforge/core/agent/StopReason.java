package dev.skillforge.core.agent;

/** Why a run ended without an error. */
public enum StopReason {
    /** The model answered without a command. */
    COMPLETE("complete"),
    /** The iteration limit was reached. */
    MAX_ITERATIONS("max-iterations"),
    /** The run was stopped (a client left or asked to stop). */
    CANCELLED("cancelled");

    private final String wireName;

    StopReason(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }
}
