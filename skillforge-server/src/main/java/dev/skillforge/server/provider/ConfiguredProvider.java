package dev.skillforge.server.provider;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.agent.ModelProvider;
import dev.skillforge.server.config.Settings;
import dev.skillforge.server.provider.openai.OpenAiChatRequest;
import dev.skillforge.server.provider.openai.OpenAiCompatibleProvider;
import dev.skillforge.server.provider.sim.DemoAgent;
import dev.skillforge.server.provider.sim.SimProviderServer;

import java.time.Duration;
import java.util.function.Function;

/**
 * The model provider chosen by the settings, with what a user should know about it. For {@code sim}
 * the simulated provider is started in-process on a free loopback port and reached over real HTTP,
 * exactly like a remote one.
 */
public record ConfiguredProvider(ModelProvider model, String name, String modelName, boolean simulated,
                                 Function<ModelCall, JsonNode> nextRequestMessages, AutoCloseable resources) implements AutoCloseable {

    public static final String DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";
    public static final String DEFAULT_OPENAI_MODEL = "gpt-4o-mini";
    public static final Duration DEMO_CHUNK_DELAY = Duration.ofMillis(15);

    public static ConfiguredProvider from(Settings settings) {
        StreamingHttp.Timeouts timeouts = new StreamingHttp.Timeouts(settings.providerTimeout(), settings.providerTimeout());
        if (settings.provider().equals("sim")) {
            SimProviderServer sim = SimProviderServer.startOnLoopback(new DemoAgent(DEMO_CHUNK_DELAY));
            var client = new OpenAiCompatibleProvider(new OpenAiCompatibleProvider.Settings(
                    sim.baseUrl(), null, SimProviderServer.MODEL, true, timeouts, RetryPolicy.DEFAULT));
            return new ConfiguredProvider(client, "sim", SimProviderServer.MODEL, true, OpenAiChatRequest::messages, sim);
        }
        String model = settings.model() == null ? DEFAULT_OPENAI_MODEL : settings.model();
        String baseUrl = settings.baseUrl() == null ? DEFAULT_OPENAI_BASE_URL : settings.baseUrl();
        var client = new OpenAiCompatibleProvider(new OpenAiCompatibleProvider.Settings(
                baseUrl, settings.apiKey(), model, true, timeouts, RetryPolicy.DEFAULT));
        return new ConfiguredProvider(client, "openai", model, false, OpenAiChatRequest::messages, () -> { });
    }

    @Override
    public void close() throws Exception {
        resources.close();
    }
}
