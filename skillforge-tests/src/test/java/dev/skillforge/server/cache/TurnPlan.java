package dev.skillforge.server.cache;

import dev.skillforge.server.provider.sim.SimReply;

import java.util.ArrayList;
import java.util.List;

/**
 * One planned turn of a random conversation: the person's message, the model calls the turn makes
 * (each with the answers its client retries before the reply) and how the turn must end.
 */
record TurnPlan(String message, List<Call> calls, Ending ending) {

    TurnPlan {
        calls = List.copyOf(calls);
    }

    /**
     * One model call: HTTP errors the client retries (429, 5xx), then the reply; no reply ({@code null})
     * when the call fails on an error after the retries are spent.
     */
    record Call(List<SimReply> retried, SimReply reply) {
        Call {
            retried = List.copyOf(retried);
        }
    }

    /** How a turn ends. Every ending but {@link Fails} keeps the text of its last call. */
    sealed interface Ending {
    }

    /** A {@code done} event with this stop reason: {@code complete} or {@code max-iterations}. */
    record Done(String stopReason) implements Ending {
    }

    /** An {@code error} event with this code: the last call failed and left nothing in the transcript. */
    record Fails(String code) implements Ending {
    }

    /**
     * Stopped ({@code POST …/stop}) once the client has seen what the last call streams before it stalls
     * ({@link #textBeforeStall()}): the text seen is kept as the assistant entry.
     */
    record StopsInStream(int iteration) implements Ending {
    }

    /** Stopped while the last call's {@value RandomTurns#SLEEP} command runs: the commands after it are not run. */
    record StopsInCommand(int iteration) implements Ending {
    }

    /** Every answer the simulated provider gives in this turn, in order. */
    List<SimReply> replies() {
        List<SimReply> replies = new ArrayList<>();
        for (Call call : calls) {
            replies.addAll(call.retried());
            if (call.reply() != null) {
                replies.add(call.reply());
            }
        }
        return replies;
    }

    /** The text the last call streams before its {@link SimReply.Stall}. */
    String textBeforeStall() {
        SimReply reply = calls.getLast().reply();
        return String.join("", reply.chunks().subList(0, ((SimReply.Stall) reply.fault()).afterChunks()));
    }

    /** The assistant entries the turn leaves, in order: each call's text, a stopped stream's text as far as it was seen. */
    List<String> assistantEntries() {
        List<String> entries = new ArrayList<>();
        for (Call call : calls.subList(0, calls.size() - 1)) {
            entries.add(call.reply().text());
        }
        switch (ending) {
            case Fails failed -> {
            }
            case StopsInStream stopped -> entries.add(textBeforeStall());
            case Done done -> entries.add(calls.getLast().reply().text());
            case StopsInCommand stopped -> entries.add(calls.getLast().reply().text());
        }
        return entries;
    }
}
