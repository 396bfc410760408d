package dev.skillforge.core.agent;

/**
 * How far one user turn may go: model output is untrusted, so neither the number of model calls,
 * nor the size of one answer, nor the number of commands a turn runs is left to the model.
 *
 * @param maxIterations  model calls per turn; the turn ends after the last one (stop reason {@code max-iterations})
 * @param maxAnswerChars characters of one model answer, text and reasoning together; an answer that
 *                       passes it fails the call ({@code answer_too_long}), as a cut-off answer does
 * @param maxCommands    commands run per turn, across its iterations; the rest are reported as not run
 */
public record TurnLimits(int maxIterations, int maxAnswerChars, int maxCommands) {

    public static final int DEFAULT_MAX_ITERATIONS = 10;
    /** A million characters: well above the longest answers models give (about 128k tokens, reasoning included). */
    public static final int DEFAULT_MAX_ANSWER_CHARS = 1_000_000;
    /** Fifty commands: a turn that forges a skill runs a handful; a model that writes hundreds is looping or injected. */
    public static final int DEFAULT_MAX_COMMANDS = 50;

    public static final TurnLimits DEFAULT = new TurnLimits(DEFAULT_MAX_ITERATIONS, DEFAULT_MAX_ANSWER_CHARS, DEFAULT_MAX_COMMANDS);

    public TurnLimits {
        atLeastOne("maxIterations", maxIterations);
        atLeastOne("maxAnswerChars", maxAnswerChars);
        atLeastOne("maxCommands", maxCommands);
    }

    public TurnLimits withMaxIterations(int iterations) {
        return new TurnLimits(iterations, maxAnswerChars, maxCommands);
    }

    public TurnLimits withMaxAnswerChars(int chars) {
        return new TurnLimits(maxIterations, chars, maxCommands);
    }

    public TurnLimits withMaxCommands(int commands) {
        return new TurnLimits(maxIterations, maxAnswerChars, commands);
    }

    private static void atLeastOne(String name, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(name + " must be at least 1, was " + value);
        }
    }
}
