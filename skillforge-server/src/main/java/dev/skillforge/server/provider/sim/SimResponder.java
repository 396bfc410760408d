package dev.skillforge.server.provider.sim;

import java.util.List;

/** Decides what the simulated provider answers to a request's messages. */
@FunctionalInterface
public interface SimResponder {

    SimReply reply(List<TokenCounter.Message> messages);
}
