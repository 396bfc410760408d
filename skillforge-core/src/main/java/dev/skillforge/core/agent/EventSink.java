package dev.skillforge.core.agent;

/** Where a run's events go, in order, on the run's thread. */
@FunctionalInterface
public interface EventSink {

    void accept(AgentEvent event);
}
