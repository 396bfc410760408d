package dev.skillforge.server.provider;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.agent.ModelProvider;
import dev.skillforge.server.cache.CacheRule;
import dev.skillforge.server.document.Vision;

import java.util.function.Function;

/**
 * What SkillForge knows of one wire format, in that format's package: how to make a client of it from a provider's
 * settings, how a call becomes the messages of its next request, what its API takes of images, and the prompt-cache
 * rule a simulation of it follows. The composition root registers one per format and is the only place that knows
 * them all (docs/providers.md: adding a wire format).
 */
public interface WireAdapter {

    /** Where a client sends its calls: the provider's own settings, or a simulation on a loopback port. */
    record Endpoint(String baseUrl, String apiKey, String model, boolean simulated) {
    }

    /** The wire format this adapter speaks. */
    ProviderPreset.Wire wire();

    /** A client of {@code spec}'s provider at {@code endpoint}. */
    ModelProvider client(Endpoint endpoint, ProviderSpec spec, StreamingHttp.Timeouts timeouts, RetryPolicy retry);

    /** How a call becomes the messages of the next request, which the prefix guard compares with the previous one's. */
    Function<ModelCall, JsonNode> nextRequestMessages(ProviderSpec spec, boolean simulated);

    /** What this format's API takes of images (the model's own limits come from its preset). */
    Vision vision();

    /** Whether {@code client} is one of this adapter's (a client built by hand, in tests and benchmarks, included). */
    boolean made(ModelProvider client);

    /** The cache rule the simulation of this format follows for {@code model}. */
    CacheRule simulatedCacheRule(String model);
}
