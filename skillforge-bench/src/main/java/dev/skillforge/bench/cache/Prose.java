package dev.skillforge.bench.cache;

import java.util.Random;

/**
 * Deterministic filler text for the scripted conversations: the same seed always gives the same
 * words ({@link Random}'s sequence is fixed by its specification), so every run and every history
 * strategy sees the same conversation.
 */
final class Prose {

    private static final String[] WORDS = {
            "brew", "grind", "filter", "steep", "ratio", "water", "temperature", "minutes", "coarse", "fine",
            "export", "column", "header", "delimiter", "encoding", "row", "schema", "merge", "clean", "check",
            "deploy", "build", "test", "branch", "release", "config", "server", "client", "cache", "request",
            "video", "frame", "caption", "scene", "step", "tool", "knife", "board", "pan", "heat",
            "first", "then", "after", "before", "always", "never", "carefully", "quickly", "slowly", "again",
            "the", "a", "with", "into", "from", "until", "each", "every", "its", "their"};

    private Prose() {
    }

    /** {@code words} words in sentences of five to twelve words, from {@code seed}. */
    static String of(long seed, int words) {
        Random random = new Random(seed);
        StringBuilder text = new StringBuilder();
        int sentence = 0;
        int sentenceLength = 5 + random.nextInt(8);
        for (int i = 0; i < words; i++) {
            String word = WORDS[random.nextInt(WORDS.length)];
            if (sentence == 0) {
                text.append(Character.toUpperCase(word.charAt(0))).append(word, 1, word.length());
            } else {
                text.append(' ').append(word);
            }
            if (++sentence == sentenceLength || i == words - 1) {
                text.append(i == words - 1 ? "." : ". ");
                sentence = 0;
                sentenceLength = 5 + random.nextInt(8);
            }
        }
        return text.toString();
    }
}
