package dev.skillforge.server.provider.sim;

import dev.skillforge.server.cache.TokenEstimate;

import java.util.Arrays;
import java.util.List;

/**
 * Counts tokens the way OpenAI's current models do (o200k_base, the encoding {@link TokenEstimate}
 * loads once for the process). A prompt is tokenised message by message, so the tokens of a request
 * that extends another one start with exactly the other one's tokens, as in a real serving stack's
 * prompt cache.
 */
public final class TokenCounter {

    private TokenCounter() {
    }

    /** A message as the simulation reads it: its text, and the images it was sent, in order. */
    public record Message(String role, String content, List<SimImage> images) {
        public Message {
            images = List.copyOf(images);
        }

        public Message(String role, String content) {
            this(role, content, List.of());
        }

        /** What is tokenised: each image's marker, then the text. */
        String tokenText() {
            StringBuilder text = new StringBuilder();
            images.forEach(image -> text.append(image.marker()));
            return text.append(content).toString();
        }
    }

    public static int[] promptTokens(List<Message> messages) {
        int[][] parts = new int[messages.size()][];
        int total = 0;
        for (int i = 0; i < parts.length; i++) {
            Message message = messages.get(i);
            parts[i] = encode("<|" + message.role() + "|>\n" + message.tokenText() + "<|end|>\n");
            total += parts[i].length;
        }
        int[] all = new int[total];
        int at = 0;
        for (int[] part : parts) {
            System.arraycopy(part, 0, all, at, part.length);
            at += part.length;
        }
        return all;
    }

    public static int count(String text) {
        return TokenEstimate.count(text);
    }

    static int[] encode(String text) {
        return TokenEstimate.tokens(text);
    }

    /** How many leading tokens two prompts share. */
    static int commonPrefix(int[] a, int[] b) {
        int mismatch = Arrays.mismatch(a, b);
        return mismatch < 0 ? a.length : mismatch;
    }
}
