package dev.skillforge.server.provider;

import dev.skillforge.server.error.ConfigurationException;
import dev.skillforge.core.context.ContextWindow;
import dev.skillforge.server.price.TokenPrices;

import java.util.List;
import java.util.Objects;

/**
 * One configured provider, resolved: its name, preset, model, base URL, where its key came from, and
 * the few switches a preset has. The key itself is only ever read from an environment variable and
 * is never printed ({@link #toString()} hides it).
 *
 * @param name      how the provider is chosen (the preset's id for the one the {@code FORGE_*} variables describe)
 * @param baseUrl   the URL the client talks to ({@code null} for the simulation, which picks a loopback port)
 * @param apiKeyEnv the environment variable the key is read from (the first one that is set, or the
 *                  first one looked at when none is), or {@code null} when the preset takes no key
 * @param apiKey    the key, or {@code null}
 * @param simFormat the simulation's wire format, {@code openai}, {@code gemini} or {@code anthropic} ({@code null} for real providers)
 * @param tools     the provider-side tools offered to the model ({@code google_search}, {@code url_context} for
 *                  Gemini; {@code web_search} for GLM)
 * @param thoughts  Gemini: ask for thought summaries ({@code includeThoughts}); Anthropic: for summarised adaptive
 *                  thinking ({@code thinking: {type: adaptive, display: summarized}}); streamed as reasoning
 * @param contextWindow the model's context window in tokens: conversations are cut to fit it
 *                  ({@link dev.skillforge.core.context.ContextWindow})
 * @param anthropic what a provider in Anthropic's format is asked for ({@code max_tokens}, thinking, the cache);
 *                  {@code null} for the other formats
 * @param prices    what the model's tokens cost (the providers file's {@code prices}, else the bundled price table's),
 *                  or {@code null} when unknown
 * @param vision    whether the model sees images ({@code FORGE_VISION}, the file's {@code vision}, else what the preset
 *                  knows of the model: {@link ProviderPreset#seesImages})
 */
public record ProviderSpec(String name, ProviderPreset preset, String model, String baseUrl, String apiKeyEnv,
                           String apiKey, String simFormat, List<String> tools, boolean thoughts, int contextWindow,
                           AnthropicSettings anthropic, TokenPrices prices, boolean vision) {

    public static final String SIM_FORMAT_OPENAI = "openai";
    public static final String SIM_FORMAT_GEMINI = "gemini";
    public static final String SIM_FORMAT_ANTHROPIC = "anthropic";

    public ProviderSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(preset, "preset");
        Objects.requireNonNull(model, "model");
        tools = List.copyOf(tools);
        if (contextWindow < ContextWindow.MIN_WINDOW_TOKENS) {
            throw new ConfigurationException("the context window of " + name + " must be at least "
                    + ContextWindow.MIN_WINDOW_TOKENS + " tokens, was " + contextWindow);
        }
    }

    /** A provider in a format without Anthropic's options, its prices unknown, seeing images if its preset says the model does. */
    public ProviderSpec(String name, ProviderPreset preset, String model, String baseUrl, String apiKeyEnv,
                        String apiKey, String simFormat, List<String> tools, boolean thoughts, int contextWindow) {
        this(name, preset, model, baseUrl, apiKeyEnv, apiKey, simFormat, tools, thoughts, contextWindow, null, null,
                preset.seesImages(model));
    }

    public boolean keyPresent() {
        return apiKey != null;
    }

    public boolean simulated() {
        return preset == ProviderPreset.SIM;
    }

    /** True when the preset needs a key here: a hosted service at its own URL (a proxy or a simulation may not). */
    public boolean keyRequired() {
        return preset.hosted() && Objects.equals(baseUrl, preset.defaultBaseUrl());
    }

    public boolean hasTool(String tool) {
        return tools.contains(tool);
    }

    /** The key stays out of logs. */
    @Override
    public String toString() {
        return "ProviderSpec[name=" + name + ", preset=" + preset.id() + ", model=" + model + ", baseUrl=" + baseUrl
                + ", apiKeyEnv=" + apiKeyEnv + ", apiKey=" + (apiKey == null ? "none" : "(set)")
                + (simFormat == null ? "" : ", simFormat=" + simFormat) + ", tools=" + tools + ", thoughts=" + thoughts + ", contextWindow=" + contextWindow
                + (anthropic == null ? "" : ", anthropic=" + anthropic) + (prices == null ? "" : ", prices=" + prices) + ", vision=" + vision + "]";
    }
}
