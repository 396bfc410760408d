package dev.skillforge.core.agent;

/**
 * Where a run's events go, in order, one at a time: on the run's thread, or, while a model streams, on the thread that
 * reads the model's answer (see {@link ModelStreamListener}). It must not block.
 */
@FunctionalInterface
public interface EventSink {

    void accept(AgentEvent event);
}
