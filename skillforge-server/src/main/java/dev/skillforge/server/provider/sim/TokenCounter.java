package dev.skillforge.server.provider.sim;

import dev.skillforge.server.cache.TokenEstimate;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Counts tokens the way OpenAI's current models do (o200k_base, the encoding {@link TokenEstimate}
 * loads once for the process). A prompt is tokenised message by message, so the tokens of a request
 * that extends another one start with exactly the other one's tokens, as in a real serving stack's
 * prompt cache.
 *
 * <p>Every request of a conversation carries all its earlier messages again, so each message's tokens are
 * remembered by its text (the {@value #REMEMBERED} most recently used): a request costs the tokenising of
 * its new messages only, not of the whole conversation again.
 */
public final class TokenCounter {

    static final int REMEMBERED = 8192;

    /** Message text to its tokens, least recently used first; the arrays are shared and never written. */
    private static final Map<String, int[]> ENCODED = new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, int[]> eldest) {
            return size() > REMEMBERED;
        }
    };

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
        synchronized (ENCODED) {
            int[] known = ENCODED.get(text);
            if (known != null) {
                return known;
            }
        }
        int[] tokens = TokenEstimate.tokens(text); // outside the lock: tokenising is the slow part
        synchronized (ENCODED) {
            ENCODED.put(text, tokens);
        }
        return tokens;
    }

    /** How many leading tokens two prompts share. */
    static int commonPrefix(int[] a, int[] b) {
        int mismatch = Arrays.mismatch(a, b);
        return mismatch < 0 ? a.length : mismatch;
    }
}
