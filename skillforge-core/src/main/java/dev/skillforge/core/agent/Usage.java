package dev.skillforge.core.agent;

/**
 * Token usage, normalised across providers. Each figure is {@code null} when the provider did not
 * report it: unknown is not zero (a provider without cache figures did not prove a cache miss).
 *
 * @param inputTokens      prompt tokens, cached ones and cache writes included
 * @param outputTokens     completion tokens, reasoning included
 * @param cacheReadTokens  prompt tokens served from the provider's cache
 * @param cacheWriteTokens prompt tokens the provider wrote to its cache on this call (Anthropic bills them above
 *                         plain input; OpenAI reports them for the models where writes cost extra)
 */
public record Usage(Long inputTokens, Long outputTokens, Long cacheReadTokens, Long cacheWriteTokens) {

    public static final Usage UNKNOWN = new Usage(null, null, null, null);

    /** Usage of a provider that reports no cache writes: that figure is unknown. */
    public Usage(Long inputTokens, Long outputTokens, Long cacheReadTokens) {
        this(inputTokens, outputTokens, cacheReadTokens, null);
    }

    /** The sum of two usages; a figure stays unknown only when both sides are unknown. */
    public Usage plus(Usage other) {
        return new Usage(add(inputTokens, other.inputTokens), add(outputTokens, other.outputTokens),
                add(cacheReadTokens, other.cacheReadTokens), add(cacheWriteTokens, other.cacheWriteTokens));
    }

    private static Long add(Long a, Long b) {
        if (a == null) {
            return b;
        }
        return b == null ? a : a + b;
    }
}
