package dev.skillforge.server;

import dev.skillforge.core.agent.ModelProvider;
import dev.skillforge.core.agent.ProviderException;
import dev.skillforge.server.provider.AnthropicSettings;
import dev.skillforge.server.provider.ProviderSpec;
import dev.skillforge.server.config.Settings;
import dev.skillforge.server.document.Vision;
import dev.skillforge.server.provider.ConfiguredProvider;
import dev.skillforge.server.provider.ProviderRegistry;
import dev.skillforge.server.provider.RetryPolicy;
import dev.skillforge.server.provider.StreamingHttp;
import dev.skillforge.server.provider.anthropic.AnthropicProvider;
import dev.skillforge.server.provider.anthropic.AnthropicRequest;
import dev.skillforge.server.provider.gemini.GeminiProvider;
import dev.skillforge.server.provider.gemini.GeminiRequest;
import dev.skillforge.server.provider.openai.ChatOptions;
import dev.skillforge.server.provider.openai.OpenAiChatRequest;
import dev.skillforge.server.provider.openai.OpenAiCompatibleProvider;
import dev.skillforge.server.provider.openai.OpenAiPresets;
import dev.skillforge.server.provider.sim.DemoAgent;
import dev.skillforge.server.provider.sim.SimProviderServer;

/**
 * Builds the client of each configured provider: the one place that knows every provider adapter
 * (OpenAI-compatible presets with their options from {@link OpenAiPresets}, Gemini's and Anthropic's own
 * clients, and the simulation, started in-process on a loopback port and reached over real HTTP in
 * OpenAI's, Gemini's or Anthropic's format).
 */
public final class ProviderFactory {

    private ProviderFactory() {
    }

    /** Builds every provider of the settings (starting the simulations among them). */
    public static ProviderRegistry registry(Settings settings) {
        StreamingHttp.Timeouts timeouts = timeouts(settings);
        return ProviderRegistry.build(settings.providers().providers(), settings.providers().defaultName(), spec -> create(spec, timeouts, RetryPolicy.DEFAULT));
    }

    /** The default provider of the settings alone. */
    public static ConfiguredProvider defaultProvider(Settings settings) {
        return create(settings.providers().defaultSpec(), timeouts(settings), RetryPolicy.DEFAULT);
    }

    private static StreamingHttp.Timeouts timeouts(Settings settings) {
        return new StreamingHttp.Timeouts(settings.providerTimeout(), settings.providerTimeout());
    }

    public static GeminiRequest.Options geminiOptions(ProviderSpec spec) {
        return new GeminiRequest.Options(spec.hasTool("google_search"), spec.hasTool("url_context"), spec.thoughts());
    }

    /** What a provider in Anthropic's format asks for, from its settings (the defaults where it has none). */
    public static AnthropicRequest.Options anthropicOptions(ProviderSpec spec) {
        AnthropicSettings settings = spec.anthropic() == null ? AnthropicSettings.DEFAULT : spec.anthropic();
        return new AnthropicRequest.Options(settings.maxTokens(), settings.thinkingBudget(), spec.thoughts(), settings.hourLongCache(),
                settings.explicitBreakpoints());
    }

    /** Builds (and for the simulation, starts) the provider; close the result to stop what it started. */
    public static ConfiguredProvider create(ProviderSpec spec, StreamingHttp.Timeouts timeouts, RetryPolicy retry) {
        return switch (spec.preset().wire()) {
            case SIM -> simulated(spec, timeouts, retry);
            case OPENAI_CHAT -> {
                var client = new OpenAiCompatibleProvider(new OpenAiCompatibleProvider.Settings(spec.baseUrl(), spec.apiKey(),
                        spec.model(), OpenAiPresets.sendsPromptCacheKey(spec.preset()), timeouts, retry, OpenAiPresets.chatOptions(spec)));
                ChatOptions.ReasoningReplay replay = OpenAiPresets.chatOptions(spec).reasoningReplay();
                yield new ConfiguredProvider(withKeyCheck(client, spec), spec.name(), spec.model(), false,
                        call -> OpenAiChatRequest.messages(call, replay), () -> { }, spec.preset().id(), spec.keyPresent(),
                        spec.contextWindow(), spec.prices(), Vision.OPENAI_CHAT.seeing(spec.vision()));
            }
            case GEMINI -> {
                var client = new GeminiProvider(new GeminiProvider.Settings(spec.baseUrl(), spec.apiKey(), spec.model(),
                        timeouts, retry, geminiOptions(spec)));
                yield new ConfiguredProvider(withKeyCheck(client, spec), spec.name(), spec.model(), false,
                        GeminiRequest::conversation, () -> { }, spec.preset().id(), spec.keyPresent(), spec.contextWindow(), spec.prices(),
                        Vision.GEMINI.seeing(spec.vision()));
            }
            case ANTHROPIC -> {
                var client = new AnthropicProvider(new AnthropicProvider.Settings(spec.baseUrl(), spec.apiKey(), spec.model(),
                        timeouts, retry, anthropicOptions(spec)));
                yield new ConfiguredProvider(withKeyCheck(client, spec), spec.name(), spec.model(), false,
                        AnthropicRequest::conversation, () -> { }, spec.preset().id(), spec.keyPresent(), spec.contextWindow(), spec.prices(),
                        Vision.ANTHROPIC.seeing(spec.vision()));
            }
        };
    }

    private static ConfiguredProvider simulated(ProviderSpec spec, StreamingHttp.Timeouts timeouts, RetryPolicy retry) {
        // The simulation refuses what the configured window cannot hold, as a real provider would.
        SimProviderServer sim = SimProviderServer.startOnLoopback(new DemoAgent(ConfiguredProvider.DEMO_CHUNK_DELAY),
                SimProviderServer.Options.DEFAULT.withContextWindow(spec.contextWindow()));
        if (ProviderSpec.SIM_FORMAT_GEMINI.equals(spec.simFormat())) {
            var client = new GeminiProvider(new GeminiProvider.Settings(sim.geminiBaseUrl(), null, SimProviderServer.MODEL,
                    timeouts, retry, GeminiRequest.Options.ALL));
            return new ConfiguredProvider(client, spec.name(), SimProviderServer.MODEL, true, GeminiRequest::conversation, sim,
                    spec.preset().id(), false, spec.contextWindow(), spec.prices(), Vision.GEMINI.seeing(spec.vision()));
        }
        if (ProviderSpec.SIM_FORMAT_ANTHROPIC.equals(spec.simFormat())) {
            var client = new AnthropicProvider(new AnthropicProvider.Settings(sim.anthropicBaseUrl(), null, SimProviderServer.MODEL,
                    timeouts, retry, anthropicOptions(spec)));
            return new ConfiguredProvider(client, spec.name(), SimProviderServer.MODEL, true, AnthropicRequest::conversation, sim,
                    spec.preset().id(), false, spec.contextWindow(), spec.prices(), Vision.ANTHROPIC.seeing(spec.vision()));
        }
        var client = new OpenAiCompatibleProvider(new OpenAiCompatibleProvider.Settings(
                sim.baseUrl(), null, SimProviderServer.MODEL, true, timeouts, retry));
        return new ConfiguredProvider(client, spec.name(), SimProviderServer.MODEL, true, OpenAiChatRequest::messages, sim,
                spec.preset().id(), false, spec.contextWindow(), spec.prices(), Vision.OPENAI_CHAT.seeing(spec.vision()));
    }

    /** A hosted provider without its key fails each call at once, saying which variable to set, instead of asking for a 401. */
    private static ModelProvider withKeyCheck(ModelProvider client, ProviderSpec spec) {
        if (!spec.keyRequired() || spec.keyPresent()) {
            return client;
        }
        String message = "The provider " + spec.name() + " (" + spec.preset().id() + ") has no API key: set "
                + (spec.apiKeyEnv() == null ? "its key variable" : spec.apiKeyEnv()) + " and restart the server";
        return (call, listener, cancellation) -> {
            throw new ProviderException("provider_no_key", message);
        };
    }
}
