package dev.skillforge.server;

import dev.skillforge.core.agent.ModelProvider;
import dev.skillforge.core.agent.ProviderException;
import dev.skillforge.server.provider.ProviderSpec;
import dev.skillforge.server.config.Settings;
import dev.skillforge.server.provider.ConfiguredProvider;
import dev.skillforge.server.provider.ProviderPreset;
import dev.skillforge.server.provider.ProviderRegistry;
import dev.skillforge.server.provider.WireAdapter;
import dev.skillforge.server.provider.anthropic.AnthropicWire;
import dev.skillforge.server.provider.gemini.GeminiWire;
import dev.skillforge.server.provider.openai.OpenAiChatWire;
import dev.skillforge.server.cache.CacheRule;
import dev.skillforge.server.provider.RetryPolicy;
import dev.skillforge.server.provider.StreamingHttp;
import dev.skillforge.server.provider.sim.DemoAgent;
import dev.skillforge.server.provider.sim.SimProviderServer;

import java.util.List;

/**
 * Builds the client of each configured provider: the one place that knows every wire format's adapter
 * ({@link #ADAPTERS}, one line each) and the simulation, started in-process on a loopback port and reached
 * over real HTTP in OpenAI's, Gemini's or Anthropic's format.
 */
public final class ProviderFactory {

    /** Every wire format's adapter: adding a format is one line here (docs/providers.md). */
    static final List<WireAdapter> ADAPTERS = List.of(new OpenAiChatWire(), new GeminiWire(), new AnthropicWire());

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

    /** Builds (and for the simulation, starts) the provider; close the result to stop what it started. */
    public static ConfiguredProvider create(ProviderSpec spec, StreamingHttp.Timeouts timeouts, RetryPolicy retry) {
        if (spec.preset().wire() == ProviderPreset.Wire.SIM) {
            return simulated(spec, timeouts, retry);
        }
        WireAdapter wire = adapter(spec.preset().wire());
        ModelProvider client = wire.client(new WireAdapter.Endpoint(spec.baseUrl(), spec.apiKey(), spec.model(), false), spec, timeouts, retry);
        return new ConfiguredProvider(withKeyCheck(client, spec), spec.name(), spec.model(), false, wire.nextRequestMessages(spec, false),
                () -> { }, spec.preset().id(), spec.keyPresent(), spec.contextWindow(), spec.prices(), wire.vision().seeing(spec.vision()));
    }

    /** The cache rule a simulated provider follows, by the format its client speaks; the strictest when unknown. */
    static CacheRule simulatedCacheRule(ConfiguredProvider provider) {
        return ADAPTERS.stream().filter(wire -> wire.made(provider.model())).findFirst()
                .map(wire -> wire.simulatedCacheRule(provider.modelName())).orElse(CacheRule.OPENAI);
    }

    private static WireAdapter adapter(ProviderPreset.Wire format) {
        return ADAPTERS.stream().filter(wire -> wire.wire() == format).findFirst()
                .orElseThrow(() -> new IllegalStateException("no adapter for the wire format " + format));
    }

    private static ConfiguredProvider simulated(ProviderSpec spec, StreamingHttp.Timeouts timeouts, RetryPolicy retry) {
        // The simulation refuses what the configured window cannot hold, as a real provider would.
        SimProviderServer sim = SimProviderServer.startOnLoopback(new DemoAgent(ConfiguredProvider.DEMO_CHUNK_DELAY),
                SimProviderServer.Options.DEFAULT.withContextWindow(spec.contextWindow()));
        SimulatedWire simulated = simulatedWire(spec, sim);
        WireAdapter wire = simulated.adapter();
        ModelProvider client = wire.client(new WireAdapter.Endpoint(simulated.baseUrl(), null, SimProviderServer.MODEL, true), spec,
                timeouts, retry);
        return new ConfiguredProvider(client, spec.name(), SimProviderServer.MODEL, true, wire.nextRequestMessages(spec, true), sim,
                spec.preset().id(), false, spec.contextWindow(), spec.prices(), wire.vision().seeing(spec.vision()));
    }

    /** The adapter a simulated provider's client is made with, and the base URL it takes on the simulation. */
    public record SimulatedWire(WireAdapter adapter, String baseUrl) {
    }

    /**
     * How a client reaches {@code sim} in {@code spec}'s simulated format (OpenAI's unless it says Gemini's or Anthropic's):
     * the launcher's simulations and the test kit's, which share one simulation among several providers, both ask here.
     */
    public static SimulatedWire simulatedWire(ProviderSpec spec, SimProviderServer sim) {
        if (ProviderSpec.SIM_FORMAT_GEMINI.equals(spec.simFormat())) {
            return new SimulatedWire(adapter(ProviderPreset.Wire.GEMINI), sim.geminiBaseUrl());
        }
        if (ProviderSpec.SIM_FORMAT_ANTHROPIC.equals(spec.simFormat())) {
            return new SimulatedWire(adapter(ProviderPreset.Wire.ANTHROPIC), sim.anthropicBaseUrl());
        }
        return new SimulatedWire(adapter(ProviderPreset.Wire.OPENAI_CHAT), sim.baseUrl());
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
