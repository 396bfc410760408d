package dev.skillforge.bench.cache;

import java.util.List;

/** One scripted turn: what the person writes, and the model's answer in each iteration, in order. */
record ScriptedTurn(String user, List<String> replies) {

    ScriptedTurn {
        replies = List.copyOf(replies);
    }

    ScriptedTurn(String user, String... replies) {
        this(user, List.of(replies));
    }
}
