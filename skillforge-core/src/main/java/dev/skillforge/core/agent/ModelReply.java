package dev.skillforge.core.agent;

import dev.skillforge.core.transcript.ProviderReplay;

import java.util.Objects;

/**
 * What a finished model call leaves besides its text (the loop keeps the text as it streamed).
 *
 * @param replay provider-native pieces to store and send back, or {@code null}
 * @param usage  token usage; figures the provider did not report are unknown
 */
public record ModelReply(ProviderReplay replay, Usage usage) {
    public ModelReply {
        Objects.requireNonNull(usage, "usage");
    }
}
