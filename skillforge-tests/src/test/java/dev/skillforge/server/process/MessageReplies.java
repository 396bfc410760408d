package dev.skillforge.server.process;

import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.server.provider.sim.SimResponder;
import dev.skillforge.server.provider.sim.TokenCounter;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/** The simulated provider's answers, chosen by the person's last message; {@code otherwise} answers the rest. */
final class MessageReplies implements SimResponder {

    private final Map<String, SimReply> byMessage = new ConcurrentHashMap<>();
    private final Function<String, SimReply> otherwise;

    MessageReplies(Function<String, SimReply> otherwise) {
        this.otherwise = otherwise;
    }

    void on(String message, SimReply reply) {
        byMessage.put(message, reply);
    }

    @Override
    public SimReply reply(List<TokenCounter.Message> messages) {
        String last = messages.getLast().content();
        SimReply scripted = byMessage.get(last);
        return scripted != null ? scripted : otherwise.apply(last);
    }
}
