package dev.skillforge.core.transcript;

import java.util.Objects;

/**
 * Provider-native pieces of an assistant answer that must be sent back exactly as they came
 * (for example {@code reasoning_content} of DeepSeek, Kimi and GLM, or Gemini's parts with their
 * thought signatures). The core never looks inside: {@code format} names the adapter that wrote
 * {@code data}, and only that adapter reads it.
 */
public record ProviderReplay(String format, String data) {
    public ProviderReplay {
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(data, "data");
    }
}
