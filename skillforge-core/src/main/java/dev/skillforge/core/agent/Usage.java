package dev.skillforge.core.agent;

/**
 * Token usage, normalised across providers. Each figure is {@code null} when the provider did not
 * report it: unknown is not zero (a provider without cache figures did not prove a cache miss).
 *
 * @param inputTokens     prompt tokens, cached ones included
 * @param outputTokens    completion tokens, reasoning included
 * @param cacheReadTokens prompt tokens served from the provider's cache
 */
public record Usage(Long inputTokens, Long outputTokens, Long cacheReadTokens) {

    public static final Usage UNKNOWN = new Usage(null, null, null);

    /** The sum of two usages; a figure stays unknown only when both sides are unknown. */
    public Usage plus(Usage other) {
        return new Usage(add(inputTokens, other.inputTokens), add(outputTokens, other.outputTokens),
                add(cacheReadTokens, other.cacheReadTokens));
    }

    private static Long add(Long a, Long b) {
        if (a == null) {
            return b;
        }
        return b == null ? a : a + b;
    }
}
