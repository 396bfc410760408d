package dev.skillforge.bench.cache;

import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.server.provider.sim.SimResponder;
import dev.skillforge.server.provider.sim.TokenCounter;

import java.util.ArrayList;
import java.util.List;

/**
 * The simulated model of the benchmark: it answers from the script, whatever history strategy built
 * the request. The turn is the one whose message the person's latest message ends with (a strategy
 * that pastes the history as text puts it before the message), the iteration is the number of
 * assistant messages after it; tool output is a user message starting {@code [Shell Output]}, which
 * is not the person's. Replies stream in chunks of {@value #CHUNK} characters, so tags are split.
 */
final class ScriptedModel implements SimResponder {

    static final int CHUNK = 48;
    private static final String TOOL_OUTPUT = "[Shell Output]\n";

    private final List<ScriptedTurn> turns = new ArrayList<>();

    /** @throws IllegalArgumentException when one turn's message ends with another's: the turn could not be told */
    ScriptedModel(List<ScriptedConversation> conversations) {
        conversations.forEach(conversation -> turns.addAll(conversation.turns()));
        for (ScriptedTurn turn : turns) {
            for (ScriptedTurn other : turns) {
                if (turn != other && turn.user().endsWith(other.user())) {
                    throw new IllegalArgumentException("two scripted messages end alike: " + other.user());
                }
            }
        }
    }

    @Override
    public SimReply reply(List<TokenCounter.Message> messages) {
        int latest = -1;
        for (int i = messages.size() - 1; i >= 0 && latest < 0; i--) {
            TokenCounter.Message message = messages.get(i);
            if (message.role().equals("user") && !message.content().startsWith(TOOL_OUTPUT)) {
                latest = i;
            }
        }
        String said = latest < 0 ? "" : messages.get(latest).content();
        ScriptedTurn turn = turns.stream().filter(t -> said.endsWith(t.user())).findFirst().orElse(null);
        int iteration = (int) messages.subList(latest + 1, messages.size()).stream().filter(m -> m.role().equals("assistant")).count();
        if (turn == null || iteration >= turn.replies().size()) {
            return SimReply.of().withFault(new SimReply.HttpError(500, "the benchmark's script has no answer for this request", null));
        }
        return SimReply.of(chunks(turn.replies().get(iteration)));
    }

    private static String[] chunks(String text) {
        List<String> chunks = new ArrayList<>();
        for (int at = 0; at < text.length(); at += CHUNK) {
            chunks.add(text.substring(at, Math.min(text.length(), at + CHUNK)));
        }
        return chunks.toArray(String[]::new);
    }
}
