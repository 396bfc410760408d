package dev.skillforge.core.agent;

/**
 * Where a run's events go, in order, one at a time. The events of a model's answer as it streams (text, reasoning,
 * tool calls, sources) may come on the thread that reads the answer (see {@link ModelStreamListener}), which they must
 * not block; the others come on the run's thread.
 */
@FunctionalInterface
public interface EventSink {

    void accept(AgentEvent event);
}
