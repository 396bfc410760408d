package dev.skillforge.bench.cache;

import dev.skillforge.server.provider.sim.SimProviderServer;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * The fixed suite of scripted conversations: plain multi-turn chat, multi-iteration turns that
 * forge skills with {@code skill list | set | get}, long tool outputs ({@code skill get} of long
 * skills, each result cut to 2,000 characters in the tool entry), and one conversation longer than
 * its model's context window. All text is generated from fixed seeds, so it is the same every run.
 */
final class CacheSuite {

    /** The window of the models that are not meant to overflow: the simulated provider's default (128K). */
    static final int LARGE_WINDOW = SimProviderServer.Options.DEFAULT.openAiContextWindow();

    private static final List<String> TOPICS = List.of("cold-brew", "csv-cleanup", "release-notes", "knife-sharpening",
            "pan-sauce", "video-captions", "branch-cleanup", "sourdough-starter");

    private CacheSuite() {
    }

    /** The benchmark's suite. */
    static List<ScriptedConversation> standard() {
        return List.of(chat(10), forge(6), longOutputs(4), overflow(16_384, 44, 110));
    }

    /** A smaller suite with the same shapes, for the test: a smaller window outgrown with fewer turns. */
    static List<ScriptedConversation> quick() {
        return List.of(chat(4), forge(2), longOutputs(2), overflow(4_608, 20, 30));
    }

    /** Questions and answers, no commands: one model call a turn. */
    static ScriptedConversation chat(int turns) {
        return new ScriptedConversation("chat", "multi-turn questions and answers, no commands", LARGE_WINDOW, false,
                IntStream.rangeClosed(1, turns).mapToObj(k -> new ScriptedTurn(
                        "Question " + k + ", about this text: " + Prose.of(seed("chat", k, 0), 100),
                        Prose.of(seed("chat", k, 1), 110))).toList());
    }

    /** Each turn forges a skill in four iterations: list, set, get to check, answer. */
    static ScriptedConversation forge(int turns) {
        List<ScriptedTurn> script = new ArrayList<>();
        for (int k = 1; k <= turns; k++) {
            String name = TOPICS.get((k - 1) % TOPICS.size()) + "-" + k;
            script.add(new ScriptedTurn("Learn " + name + " from this: " + Prose.of(seed("forge", k, 0), 200),
                    "Let me check what is there first.\n\n<shell>skill list</shell>",
                    "Nothing covers " + name + " yet, so I will save it.\n\n" + skillSet(name, seed("forge", k, 1), 150),
                    "Let me read it back.\n\n<shell>skill get " + name + "</shell>",
                    "Saved **" + name + "**. " + Prose.of(seed("forge", k, 2), 40)));
        }
        return new ScriptedConversation("forge", "multi-iteration turns: skill list, set, get, answer", LARGE_WINDOW, false, script);
    }

    /** Four long skills saved in one iteration, then turns that read them all back (long tool entries). */
    static ScriptedConversation longOutputs(int readingTurns) {
        List<String> names = TOPICS.subList(0, 4);
        StringBuilder saveAll = new StringBuilder("Saving the four guides.\n\n");
        for (int i = 0; i < names.size(); i++) {
            saveAll.append(skillSet(names.get(i), seed("long", 0, i), 450)).append('\n');
        }
        List<ScriptedTurn> script = new ArrayList<>();
        script.add(new ScriptedTurn("Save each of these four guides as a skill: " + Prose.of(seed("long", 0, 9), 300),
                saveAll.toString().strip(), "Saved all four."));
        String getAll = names.stream().map(name -> "<shell>skill get " + name + "</shell>").reduce("", String::concat);
        for (int k = 1; k <= readingTurns; k++) {
            script.add(new ScriptedTurn("Compare the guides, round " + k + ": " + Prose.of(seed("long", k, 0), 40),
                    "Reading all four.\n\n" + getAll,
                    "<shell>skill search brew</shell><shell>skill list</shell>",
                    Prose.of(seed("long", k, 1), 90)));
        }
        return new ScriptedConversation("long-outputs", "long tool outputs: four long skills read back each turn", LARGE_WINDOW,
                false, script);
    }

    /** Notes saved one a turn until the conversation is longer than {@code window}. */
    static ScriptedConversation overflow(int window, int turns, int words) {
        List<ScriptedTurn> script = new ArrayList<>();
        for (int k = 1; k <= turns; k++) {
            script.add(new ScriptedTurn("Note " + k + ": " + Prose.of(seed("overflow", k, 0), words),
                    "Saving note " + k + ".\n\n" + skillSet("note-" + k, seed("overflow", k, 1), words),
                    "Saved note-" + k + ". " + Prose.of(seed("overflow", k, 2), 30)));
        }
        return new ScriptedConversation("overflow", "longer than its model's " + window + "-token context window", window, true, script);
    }

    /** A {@code skill set} tag with a whole SKILL.md of about {@code words} words. */
    private static String skillSet(String name, long seed, int words) {
        StringBuilder steps = new StringBuilder();
        int perStep = Math.max(10, words / 5);
        for (int step = 1; step * perStep <= words; step++) {
            steps.append(step).append(". ").append(Prose.of(seed + step, perStep)).append('\n');
        }
        return "<shell>skill set " + name + "\n---\nname: " + name + "\ndescription: " + Prose.of(seed, 20)
                + "\n---\n# " + name + "\n\n" + steps + "</shell>";
    }

    private static long seed(String conversation, int turn, int part) {
        return (conversation.hashCode() * 31L + turn) * 31L + part;
    }
}
