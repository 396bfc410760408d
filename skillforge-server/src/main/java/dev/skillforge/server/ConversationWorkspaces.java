package dev.skillforge.server;

import dev.skillforge.core.agent.CommandRunner;
import dev.skillforge.server.conversation.ConversationCommands;
import dev.skillforge.server.exec.CommandRouter;
import dev.skillforge.server.exec.Workspace;
import dev.skillforge.server.exec.Workspaces;

/** Each conversation's commands act for its owner and run in the workspace named by its id, within its owner's. */
final class ConversationWorkspaces implements ConversationCommands {

    private final CommandRouter commands;
    private final Workspaces workspaces;

    ConversationWorkspaces(CommandRouter commands, Workspaces workspaces) {
        this.commands = commands;
        this.workspaces = workspaces;
    }

    @Override
    public CommandRunner forConversation(String owner, String id) {
        return commands.in(owner, id);
    }

    @Override
    public Workspace.Usage usage(String owner, String id) {
        return workspaces.usage(owner, id);
    }

    @Override
    public void clear(String owner, String id) {
        workspaces.clear(owner, id);
    }

    @Override
    public void forked(String owner, String from, String to) {
        workspaces.copy(owner, from, to);
    }

    @Override
    public void deleted(String owner, String id) {
        workspaces.delete(owner, id);
    }
}
