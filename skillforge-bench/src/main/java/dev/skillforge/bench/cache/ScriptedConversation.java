package dev.skillforge.bench.cache;

import java.util.List;

/**
 * A scripted conversation and the context window of the model it runs on (the simulated provider
 * refuses longer prompts; SkillForge's server keeps to the same window).
 *
 * @param outgrowsWindow the conversation is meant to grow past its window: SkillForge must cut its
 *                       view at least once, and is held to the overflow target instead of 100%
 */
record ScriptedConversation(String name, String about, int contextWindow, boolean outgrowsWindow, List<ScriptedTurn> turns) {

    ScriptedConversation {
        turns = List.copyOf(turns);
    }
}
