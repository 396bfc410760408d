package dev.skillforge.server.exec;

import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.agent.CommandResult;
import dev.skillforge.core.agent.CommandRunner;
import dev.skillforge.core.shell.ShellCommand;

import java.util.function.BiFunction;

/**
 * The agent's commands: a command whose first word is {@code skill} goes to the in-process skill commands
 * (which never start a process); {@code web} to the page fetcher (in-process too); anything else to the
 * {@link ProcessRunner}, which runs it in the turn's own workspace only if the operator's allow-list names
 * its program, and refuses it otherwise.
 */
public final class CommandRouter {

    private final BiFunction<String, String, CommandRunner> skills;
    private final CommandRunner web;
    private final ProcessRunner processes;
    private final Workspaces workspaces;
    private final CommandStats stats;

    /**
     * @param skills the runner of a conversation's {@code skill …} commands, by its owner and its key
     * @param web    runs {@code web …} commands (which say so when the operator has not allowed them)
     */
    public CommandRouter(BiFunction<String, String, CommandRunner> skills, CommandRunner web, ProcessRunner processes, Workspaces workspaces, CommandStats stats) {
        this.skills = skills;
        this.web = web;
        this.processes = processes;
        this.workspaces = workspaces;
        this.stats = stats;
    }

    /**
     * The runner of {@code owner}'s turns whose programs run in the workspace of {@code key} (a conversation's id, or
     * a stateless conversation's key); the folder is made when the first program runs.
     *
     * @throws IllegalArgumentException when {@code owner} or {@code key} is not an id
     */
    public CommandRunner in(String owner, String key) {
        workspaces.checkKey(owner); // now, not at the first program
        workspaces.checkKey(key);
        return (command, cancellation) -> run(command, owner, key, cancellation);
    }

    private CommandResult run(ShellCommand command, String owner, String key, Cancellation cancellation) {
        if (isSkillCommand(command)) {
            stats.count(CommandStats.Outcome.SKILL);
            return skills.apply(owner, key).run(command, cancellation);
        }
        if (firstWord(command).equals("web")) {
            stats.count(CommandStats.Outcome.SKILL);
            return web.run(command, cancellation);
        }
        return processes.run(command, workspaces.open(owner, key), cancellation);
    }

    private static boolean isSkillCommand(ShellCommand command) {
        return firstWord(command).equals("skill");
    }

    private static String firstWord(ShellCommand command) {
        return command.firstLine().split("\\s+", 2)[0];
    }
}
