package dev.skillforge.core.agent;

import dev.skillforge.core.shell.ShellCommand;

/**
 * The port that runs a command the model wrote. Implementations decide what may run; a refused or
 * failed command is a result the model can read, never an exception.
 */
public interface CommandRunner {

    CommandResult run(ShellCommand command, Cancellation cancellation);
}
