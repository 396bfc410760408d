package dev.skillforge.core.agent;

import java.util.List;
import java.util.Objects;

/**
 * The output of a command and its exit code (0 on success), and the pages it read, if any (each becomes a
 * {@code source} event, as a provider's grounding sources do).
 */
public record CommandResult(String output, int exitCode, List<Source> sources) {
    public CommandResult {
        Objects.requireNonNull(output, "output");
        sources = List.copyOf(sources);
    }

    public CommandResult(String output, int exitCode) {
        this(output, exitCode, List.of());
    }

    /** A page a command read: its address and title. */
    public record Source(String url, String title) {
        public Source {
            Objects.requireNonNull(url, "url");
            Objects.requireNonNull(title, "title");
        }
    }

    public static CommandResult ok(String output) {
        return new CommandResult(output, 0);
    }

    public static CommandResult failed(String output, int exitCode) {
        return new CommandResult(output, exitCode);
    }
}
