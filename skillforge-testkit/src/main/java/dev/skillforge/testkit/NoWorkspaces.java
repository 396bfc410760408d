package dev.skillforge.testkit;

import dev.skillforge.core.agent.CommandResult;
import dev.skillforge.core.agent.CommandRunner;
import dev.skillforge.server.conversation.ConversationCommands;
import dev.skillforge.server.exec.Workspace;
import dev.skillforge.server.exec.WorkspaceQuota;

import java.util.Optional;

/** Conversations without commands (tests of the conversation service alone): every command fails, no workspace exists. */
public final class NoWorkspaces implements ConversationCommands {

    @Override
    public CommandRunner forConversation(String owner, String id) {
        return (command, cancellation) -> CommandResult.failed("no commands here", 1);
    }

    @Override
    public Workspace.Usage usage(String owner, String id) {
        return new Workspace.Usage(0, 0, WorkspaceQuota.DEFAULT, Optional.empty());
    }

    @Override
    public void clear(String owner, String id) {
    }

    @Override
    public void forked(String owner, String from, String to) {
    }

    @Override
    public void deleted(String owner, String id) {
    }
}
