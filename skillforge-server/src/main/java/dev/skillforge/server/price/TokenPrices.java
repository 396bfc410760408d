package dev.skillforge.server.price;

import dev.skillforge.server.error.ConfigurationException;
import dev.skillforge.core.agent.Usage;

import java.util.OptionalDouble;

/**
 * What one model's tokens cost, in US dollars per million tokens: plain input, input read from the
 * provider's cache, input written to it, and output. A call's cost follows from its {@link Usage}
 * ({@link #cost}); a provider that bills no cache writes has a write price equal to its input price.
 */
public record TokenPrices(double input, double cachedInput, double cacheWrite, double output) {

    private static final double PER_MILLION = 1_000_000.0;

    public TokenPrices {
        requirePrice("input", input);
        requirePrice("cachedInput", cachedInput);
        requirePrice("cacheWrite", cacheWrite);
        requirePrice("output", output);
    }

    private static void requirePrice(String name, double dollars) {
        if (!(dollars >= 0) || Double.isInfinite(dollars)) {
            throw new ConfigurationException(name + " must be a price of 0 dollars or more per million tokens, was " + dollars);
        }
    }

    /**
     * What {@code usage} costs in dollars, or empty when its figures do not say: input and output must
     * be known; an unknown cache read (or write) is fine only where it is priced like plain input, since
     * then it costs the same either way. Input tokens include the cached and the written ones.
     */
    public OptionalDouble cost(Usage usage) {
        if (usage.inputTokens() == null || usage.outputTokens() == null) {
            return OptionalDouble.empty();
        }
        Long read = knownOrPlain(usage.cacheReadTokens(), cachedInput);
        Long written = knownOrPlain(usage.cacheWriteTokens(), cacheWrite);
        if (read == null || written == null) {
            return OptionalDouble.empty();
        }
        long plain = usage.inputTokens() - read - written;
        if (plain < 0) {
            return OptionalDouble.empty(); // figures that contradict each other price nothing
        }
        return OptionalDouble.of((plain * input + read * cachedInput + written * cacheWrite + usage.outputTokens() * output) / PER_MILLION);
    }

    /** The count, or 0 when unknown but priced like plain input (it then costs the same as plain input); else {@code null}. */
    private Long knownOrPlain(Long tokens, double price) {
        if (tokens != null) {
            return tokens;
        }
        return price == input ? Long.valueOf(0) : null;
    }
}
