package dev.skillforge.server.exec;

import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.agent.CommandResult;
import dev.skillforge.core.agent.CommandRunner;
import dev.skillforge.core.shell.ShellCommand;

/**
 * The agent's command runner: a command whose first word is {@code skill} goes to the in-process
 * skill commands (which never start a process); {@code web} to the page fetcher (in-process too); anything else
 * to the {@link ProcessRunner}, which
 * runs it only if the operator's allow-list names its program, and refuses it otherwise.
 */
public final class CommandRouter implements CommandRunner {

    private final CommandRunner skills;
    private final CommandRunner web;
    private final ProcessRunner processes;
    private final CommandStats stats;

    /** @param web runs {@code web …} commands (which say so when the operator has not allowed them) */
    public CommandRouter(CommandRunner skills, CommandRunner web, ProcessRunner processes, CommandStats stats) {
        this.skills = skills;
        this.web = web;
        this.processes = processes;
        this.stats = stats;
    }

    @Override
    public CommandResult run(ShellCommand command, Cancellation cancellation) {
        if (isSkillCommand(command)) {
            stats.count(CommandStats.Outcome.SKILL);
            return skills.run(command, cancellation);
        }
        if (firstWord(command).equals("web")) {
            stats.count(CommandStats.Outcome.SKILL);
            return web.run(command, cancellation);
        }
        return processes.run(command, cancellation);
    }

    static boolean isSkillCommand(ShellCommand command) {
        return firstWord(command).equals("skill");
    }

    private static String firstWord(ShellCommand command) {
        return command.firstLine().split("\\s+", 2)[0];
    }
}
