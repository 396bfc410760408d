package dev.skillforge.core.agent;

import dev.skillforge.core.transcript.ProviderReplay;

import java.util.Objects;

/**
 * What a finished model call leaves besides its text (the loop keeps the text as it streamed).
 *
 * @param replay        provider-native pieces to store and send back, or {@code null}
 * @param usage         token usage; figures the provider did not report are unknown
 * @param responseModel the model that answered, as the provider named it, or {@code null} when it did not say
 * @param finishReason  why the provider ended the answer, in its own words ({@code stop}, {@code STOP}, {@code end_turn}),
 *                      or {@code null} when it did not say
 */
public record ModelReply(ProviderReplay replay, Usage usage, String responseModel, String finishReason) {
    public ModelReply {
        Objects.requireNonNull(usage, "usage");
    }

    /** A reply that does not say which model answered or why it ended. */
    public ModelReply(ProviderReplay replay, Usage usage) {
        this(replay, usage, null, null);
    }
}
