package dev.skillforge.server.exec;

import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.agent.CommandResult;
import dev.skillforge.core.agent.CommandRunner;
import dev.skillforge.core.shell.ShellCommand;

/**
 * The agent's command runner: a command whose first word is {@code skill} goes to the in-process
 * skill commands (which never start a process); anything else to the {@link ProcessRunner}, which
 * runs it only if the operator's allow-list names its program, and refuses it otherwise.
 */
public final class CommandRouter implements CommandRunner {

    private final CommandRunner skills;
    private final ProcessRunner processes;
    private final CommandStats stats;

    public CommandRouter(CommandRunner skills, ProcessRunner processes, CommandStats stats) {
        this.skills = skills;
        this.processes = processes;
        this.stats = stats;
    }

    @Override
    public CommandResult run(ShellCommand command, Cancellation cancellation) {
        if (isSkillCommand(command)) {
            stats.count(CommandStats.Outcome.SKILL);
            return skills.run(command, cancellation);
        }
        return processes.run(command, cancellation);
    }

    static boolean isSkillCommand(ShellCommand command) {
        String[] words = command.firstLine().split("\\s+", 2);
        return words[0].equals("skill");
    }
}
