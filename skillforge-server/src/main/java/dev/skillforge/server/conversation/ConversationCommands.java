package dev.skillforge.server.conversation;

import dev.skillforge.core.agent.CommandRunner;
import dev.skillforge.server.exec.Workspace;

/**
 * Where a conversation's commands run: each conversation has a workspace of its own, which follows the
 * conversation's life (copied into a fork, gone with a delete) and which its owner can look at and clear.
 */
public interface ConversationCommands {

    /** Runs the commands of conversation {@code id}'s turns, in its workspace. */
    CommandRunner forConversation(String id);

    /** What the workspace of {@code id} holds (nothing, when no program ran in it yet). */
    Workspace.Usage usage(String id);

    /** Empties the workspace of {@code id}; called while no turn of it runs. */
    void clear(String id);

    /** Conversation {@code to} was forked from {@code from}: it starts with a copy of its files. */
    void forked(String from, String to);

    /** Conversation {@code id} is deleted: so is its workspace. */
    void deleted(String id);
}
