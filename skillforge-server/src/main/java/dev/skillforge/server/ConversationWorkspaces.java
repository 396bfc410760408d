package dev.skillforge.server;

import dev.skillforge.core.agent.CommandRunner;
import dev.skillforge.server.conversation.ConversationCommands;
import dev.skillforge.server.exec.CommandRouter;
import dev.skillforge.server.exec.Workspace;
import dev.skillforge.server.exec.Workspaces;

/** Each conversation's commands run in the workspace named by its id. */
final class ConversationWorkspaces implements ConversationCommands {

    private final CommandRouter commands;
    private final Workspaces workspaces;

    ConversationWorkspaces(CommandRouter commands, Workspaces workspaces) {
        this.commands = commands;
        this.workspaces = workspaces;
    }

    @Override
    public CommandRunner forConversation(String id) {
        return commands.in(id);
    }

    @Override
    public Workspace.Usage usage(String id) {
        return workspaces.usage(id);
    }

    @Override
    public void clear(String id) {
        workspaces.clear(id);
    }

    @Override
    public void forked(String from, String to) {
        workspaces.copy(from, to);
    }

    @Override
    public void deleted(String id) {
        workspaces.delete(id);
    }
}
