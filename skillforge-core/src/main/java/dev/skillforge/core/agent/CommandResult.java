package dev.skillforge.core.agent;

import java.util.Objects;

/** The output of a command and its exit code (0 on success). */
public record CommandResult(String output, int exitCode) {
    public CommandResult {
        Objects.requireNonNull(output, "output");
    }

    public static CommandResult ok(String output) {
        return new CommandResult(output, 0);
    }

    public static CommandResult failed(String output, int exitCode) {
        return new CommandResult(output, exitCode);
    }
}
