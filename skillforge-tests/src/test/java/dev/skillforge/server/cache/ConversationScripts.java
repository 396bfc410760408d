package dev.skillforge.server.cache;

import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.server.provider.sim.SimResponder;
import dev.skillforge.server.provider.sim.TokenCounter;

import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The simulated model of many conversations at once: every person's message starts with its
 * conversation's {@linkplain #marker marker}, and a request is answered with the next reply planned for
 * the conversation its messages name. A request nothing was planned for is answered 400 (not retried)
 * and counted.
 */
final class ConversationScripts implements SimResponder {

    private static final Pattern MARKER = Pattern.compile("\\[conv-(\\d+)]");

    private final Map<Integer, Queue<SimReply>> planned = new ConcurrentHashMap<>();
    private final AtomicInteger unplanned = new AtomicInteger();

    static String marker(int conversation) {
        return "[conv-" + conversation + "]";
    }

    /** The conversation the first marker in {@code text} names. */
    static OptionalInt conversationIn(CharSequence text) {
        Matcher matcher = MARKER.matcher(text);
        return matcher.find() ? OptionalInt.of(Integer.parseInt(matcher.group(1))) : OptionalInt.empty();
    }

    /** The replies of a conversation's next turn, in order. */
    void plan(int conversation, List<SimReply> replies) {
        planned.put(conversation, new ConcurrentLinkedQueue<>(replies));
    }

    int remaining(int conversation) {
        Queue<SimReply> replies = planned.get(conversation);
        return replies == null ? 0 : replies.size();
    }

    int unplanned() {
        return unplanned.get();
    }

    @Override
    public SimReply reply(List<TokenCounter.Message> messages) {
        for (TokenCounter.Message message : messages.reversed()) {
            OptionalInt conversation = conversationIn(message.content());
            if (conversation.isPresent()) {
                SimReply next = planned.getOrDefault(conversation.getAsInt(), new ConcurrentLinkedQueue<>()).poll();
                if (next != null) {
                    return next;
                }
                break;
            }
        }
        unplanned.incrementAndGet();
        return SimReply.of().withFault(new SimReply.HttpError(400, "the test planned no reply for this request", null));
    }
}
