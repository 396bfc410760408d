package dev.skillforge.server.cache;

import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.agent.ModelProvider;
import dev.skillforge.core.agent.ModelReply;
import dev.skillforge.core.agent.ModelStreamListener;
import dev.skillforge.core.agent.ProviderException;
import dev.skillforge.core.agent.Usage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Locale;

/**
 * The {@code [Cache Debug]} line (as the seeds log it), one per model call at DEBUG (shown with
 * {@code FORGE_CACHE_LOG=debug}: at INFO it flooded the console): the conversation
 * (its cache key), provider, model, iteration, prompt tokens, cached tokens, the tokens written to the
 * cache on this call (Anthropic bills them above plain input), the cached share of the prompt, and, when known, the share the provider's cache rule made possible. Unknown figures say
 * {@code unknown} (a provider without cache figures did not prove a miss).
 *
 * <p>As a {@link ModelProvider} it decorates a loop that has no {@link PrefixGuard} (the stateless
 * {@code /api/agent} loop); the guard logs the same line itself, with the possible share.
 */
public final class CacheDebug implements ModelProvider {

    private static final Logger log = LoggerFactory.getLogger(CacheDebug.class);

    private final ModelProvider delegate;
    private final String provider;
    private final String model;

    public CacheDebug(ModelProvider delegate, String provider, String model) {
        this.delegate = delegate;
        this.provider = provider;
        this.model = model;
    }

    @Override
    public ModelReply stream(ModelCall call, ModelStreamListener listener, Cancellation cancellation) throws ProviderException {
        ModelReply reply = delegate.stream(call, listener, cancellation);
        log(call, provider, model, reply.usage(), null);
        return reply;
    }

    /** Logs the line for one finished call; {@code possibleCachedTokens} is {@code null} when unknown. */
    static void log(ModelCall call, String provider, String model, Usage usage, Long possibleCachedTokens) {
        if (log.isDebugEnabled()) {
            log.debug(line(call.cacheKey(), provider, model, call.iteration(), usage, possibleCachedTokens));
        }
    }

    static String line(String conversation, String provider, String model, int iteration, Usage usage, Long possibleCachedTokens) {
        StringBuilder line = new StringBuilder("[Cache Debug] conversation=").append(conversation)
                .append(" provider=").append(provider).append(" model=").append(model)
                .append(" iteration=").append(iteration)
                .append(" promptTokens=").append(orUnknown(usage.inputTokens()))
                .append(" cachedTokens=").append(orUnknown(usage.cacheReadTokens()))
                .append(" cacheWriteTokens=").append(orUnknown(usage.cacheWriteTokens()))
                .append(" cachedShare=").append(share(usage.cacheReadTokens(), usage.inputTokens()));
        if (possibleCachedTokens != null) {
            line.append(" possibleShare=").append(share(possibleCachedTokens, usage.inputTokens()));
        }
        return line.toString();
    }

    /** {@code part / whole} as a percentage with one decimal, or {@code unknown}. */
    static String share(Long part, Long whole) {
        if (part == null || whole == null || whole <= 0) {
            return "unknown";
        }
        return String.format(Locale.ROOT, "%.1f%%", 100.0 * part / whole);
    }

    private static String orUnknown(Long value) {
        return value == null ? "unknown" : value.toString();
    }
}
