package dev.skillforge.core.shell;

import java.util.Objects;

/**
 * A command found in a {@code <shell>} tag, with its id {@code cmd-{iteration}-{index}}: both
 * 0-based, the index counting the commands of one iteration in the order they appeared. The id is
 * what clients match on; two identical commands get two ids, so each shows with its own status and output.
 */
public record ShellCommand(String id, int iteration, int index, String command) {

    public ShellCommand {
        Objects.requireNonNull(command, "command");
        if (iteration < 0 || index < 0) {
            throw new IllegalArgumentException("iteration and index must be >= 0");
        }
        if (!id.equals(idFor(iteration, index))) {
            throw new IllegalArgumentException("id " + id + " does not match iteration " + iteration + " and index " + index);
        }
    }

    public static ShellCommand of(int iteration, int index, String command) {
        return new ShellCommand(idFor(iteration, index), iteration, index, command);
    }

    public static String idFor(int iteration, int index) {
        return "cmd-" + iteration + "-" + index;
    }

    /** The first line of the command (the rest, if any, is its input, e.g. a SKILL.md body). */
    public String firstLine() {
        int newline = command.indexOf('\n');
        return (newline < 0 ? command : command.substring(0, newline)).strip();
    }
}
