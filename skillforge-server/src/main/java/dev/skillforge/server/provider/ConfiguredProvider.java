package dev.skillforge.server.provider;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.agent.ModelProvider;
import dev.skillforge.server.document.Vision;
import dev.skillforge.server.price.TokenPrices;

import java.time.Duration;
import java.util.function.Function;

/**
 * A configured model provider, with what a user should know about it: its name, model, whether it is
 * the simulation, its preset and whether its key is present (never the key). For {@code sim} the
 * simulated provider is started in-process on a free loopback port and reached over real HTTP,
 * exactly like a remote one. Every configured provider by name: {@link ProviderRegistry}.
 *
 * @param nextRequestMessages the conversation part of the request this provider would be sent for a call
 *                            (OpenAI's messages array; Gemini's systemInstruction and contents; Anthropic's system
 *                            and messages)
 * @param contextWindow       the model's context window in tokens
 * @param prices              what the model's tokens cost, or {@code null} when unknown
 * @param vision              whether the model sees images, and what its API takes of them
 */
public record ConfiguredProvider(ModelProvider model, String name, String modelName, boolean simulated,
                                 Function<ModelCall, JsonNode> nextRequestMessages, AutoCloseable resources,
                                 String preset, boolean keyPresent, int contextWindow, TokenPrices prices,
                                 Vision vision) implements AutoCloseable {

    public static final String DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";
    public static final String DEFAULT_OPENAI_MODEL = "gpt-4o-mini";
    public static final Duration DEMO_CHUNK_DELAY = Duration.ofMillis(15);

    /**
     * A provider put together by hand (tests, benchmarks): its preset is taken to be its name, its key
     * unknown, its context window the simulation's.
     */
    public ConfiguredProvider(ModelProvider model, String name, String modelName, boolean simulated,
                              Function<ModelCall, JsonNode> nextRequestMessages, AutoCloseable resources) {
        this(model, name, modelName, simulated, nextRequestMessages, resources, name, false,
                ProviderPreset.SIM.defaultContextWindow());
    }

    /** A provider whose prices are unknown and whose model sees no images. */
    public ConfiguredProvider(ModelProvider model, String name, String modelName, boolean simulated,
                              Function<ModelCall, JsonNode> nextRequestMessages, AutoCloseable resources,
                              String preset, boolean keyPresent, int contextWindow) {
        this(model, name, modelName, simulated, nextRequestMessages, resources, preset, keyPresent, contextWindow, null);
    }

    /** A provider whose model sees no images. */
    public ConfiguredProvider(ModelProvider model, String name, String modelName, boolean simulated,
                              Function<ModelCall, JsonNode> nextRequestMessages, AutoCloseable resources,
                              String preset, boolean keyPresent, int contextWindow, TokenPrices prices) {
        this(model, name, modelName, simulated, nextRequestMessages, resources, preset, keyPresent, contextWindow, prices, Vision.NONE);
    }

    @Override
    public void close() {
        try {
            resources.close();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            // What a provider holds (a simulator's server, nothing for a remote one) closes without checked failures.
            throw new IllegalStateException("the resources of provider " + name() + " did not close", e);
        }
    }
}
