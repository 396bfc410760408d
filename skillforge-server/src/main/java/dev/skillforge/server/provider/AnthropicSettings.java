package dev.skillforge.server.provider;

import dev.skillforge.server.error.ConfigurationException;
import java.util.Locale;

/**
 * What a provider speaking Anthropic's Messages API is asked for besides the conversation (the
 * {@code anthropic} preset, and the simulation in Anthropic's format).
 *
 * @param maxTokens           {@code max_tokens}: the output limit of a call (thinking included); reaching it fails the call
 * @param thinkingBudget      {@code thinking: {type: enabled, budget_tokens}} for the models before adaptive thinking, or
 *                            {@code null} (at least {@value #MIN_THINKING_BUDGET}, less than {@code maxTokens})
 * @param cacheTtl            how long a cache write is kept: {@value #TTL_5M} (the default) or {@value #TTL_1H}
 * @param explicitBreakpoints {@code cache_control} on the system prompt and the newest message's last block instead of
 *                            the top-level automatic form, for endpoints without the latter
 */
public record AnthropicSettings(int maxTokens, Integer thinkingBudget, String cacheTtl, boolean explicitBreakpoints) {

    public static final String TTL_5M = "5m";
    public static final String TTL_1H = "1h";
    public static final int DEFAULT_MAX_TOKENS = 32_000;
    public static final int MAX_MAX_TOKENS = 1_000_000;
    /** Anthropic's smallest thinking budget. */
    public static final int MIN_THINKING_BUDGET = 1024;
    public static final String AUTOMATIC = "automatic";
    public static final String EXPLICIT = "explicit";

    public static final AnthropicSettings DEFAULT = new AnthropicSettings(DEFAULT_MAX_TOKENS, null, TTL_5M, false);

    public AnthropicSettings {
        if (maxTokens < 1 || maxTokens > MAX_MAX_TOKENS) {
            throw new ConfigurationException("max tokens must be from 1 to " + MAX_MAX_TOKENS + ", was " + maxTokens);
        }
        if (thinkingBudget != null && (thinkingBudget < MIN_THINKING_BUDGET || thinkingBudget >= maxTokens)) {
            throw new ConfigurationException("the thinking budget must be at least " + MIN_THINKING_BUDGET
                    + " tokens and less than max tokens (" + maxTokens + "), was " + thinkingBudget);
        }
        if (!TTL_5M.equals(cacheTtl) && !TTL_1H.equals(cacheTtl)) {
            throw new ConfigurationException("the cache TTL must be 5m or 1h, was " + cacheTtl);
        }
    }

    /** A TTL as written in a setting ({@code 5m}, {@code 1h}, any case), checked. */
    public static String ttl(String value, String where) {
        String ttl = value.strip().toLowerCase(Locale.ROOT);
        if (!TTL_5M.equals(ttl) && !TTL_1H.equals(ttl)) {
            throw new ConfigurationException(where + "=" + value + " is not supported: use 5m or 1h");
        }
        return ttl;
    }

    /** Whether cache writes are kept for an hour (billed at the 1-hour write price). */
    public boolean hourLongCache() {
        return TTL_1H.equals(cacheTtl);
    }
}
