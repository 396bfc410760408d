package dev.skillforge.server.http;

import io.javalin.config.JavalinConfig;

/**
 * A set of routes the API's server serves behind its security checks (Javalin's plugin style): the chat API, skills,
 * people, settings, MCP, the status probes. {@link ApiServer#start} takes them as a list, so a new door is one more
 * element where the server is composed, not one more parameter.
 */
@FunctionalInterface
public interface Door {

    /** Adds this door's routes (and filters) to the server being configured. */
    void register(JavalinConfig config);

    /** Ends what the door holds open when the server stops (long-lived streams); nothing by default. */
    default void close() {
    }
}
