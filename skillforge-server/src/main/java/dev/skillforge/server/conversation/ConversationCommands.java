package dev.skillforge.server.conversation;

import dev.skillforge.core.agent.CommandRunner;
import dev.skillforge.server.exec.Workspace;

/**
 * Where a conversation's commands run, and for whom: the skill commands act on its owner's skills, and its
 * programs run in a workspace of its own, within its owner's, which follows the conversation's life (copied into
 * a fork, gone with a delete) and which its owner can look at and clear. Every method is called for a
 * conversation whose owner was checked.
 */
public interface ConversationCommands {

    /** Runs the commands of the turns of {@code owner}'s conversation {@code id}, in its workspace. */
    CommandRunner forConversation(String owner, String id);

    /** What the workspace of {@code owner}'s conversation {@code id} holds (nothing, when no program ran in it yet). */
    Workspace.Usage usage(String owner, String id);

    /** Empties that workspace; called while no turn of it runs. */
    void clear(String owner, String id);

    /** {@code owner}'s conversation {@code to} was forked from {@code from}: it starts with a copy of its files. */
    void forked(String owner, String from, String to);

    /** {@code owner}'s conversation {@code id} is deleted: so is its workspace. */
    void deleted(String owner, String id);
}
