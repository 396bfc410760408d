package dev.skillforge.testkit;

import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.server.provider.sim.SimResponder;
import dev.skillforge.server.provider.sim.TokenCounter;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Scripted answers for tests: each request takes the next reply in order. When the script runs out
 * the provider answers HTTP 500 saying so, so a test that expected fewer calls fails clearly.
 */
public final class SimScript implements SimResponder {

    private final ConcurrentLinkedQueue<SimReply> replies = new ConcurrentLinkedQueue<>();

    public SimScript(SimReply... replies) {
        this.replies.addAll(List.of(replies));
    }

    public SimScript then(SimReply reply) {
        replies.add(reply);
        return this;
    }

    public int remaining() {
        return replies.size();
    }

    @Override
    public SimReply reply(List<TokenCounter.Message> messages) {
        SimReply next = replies.poll();
        return next != null ? next
                : SimReply.of().withFault(new SimReply.HttpError(500, "simulated provider: the test script has no reply left", null));
    }
}
