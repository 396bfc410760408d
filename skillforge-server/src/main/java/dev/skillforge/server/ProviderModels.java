package dev.skillforge.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.core.agent.AgentLoop;
import dev.skillforge.core.agent.CommandRunner;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.server.conversation.ConversationException;
import dev.skillforge.server.conversation.ConversationModels;
import dev.skillforge.server.provider.ConfiguredProvider;
import dev.skillforge.server.provider.ProviderRegistry;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Conversations' providers from the configured {@link ProviderRegistry}: a conversation names one
 * provider (the default if it names none) and runs that provider's model. A different model is a
 * differently named provider in the configuration, so every conversation's client exists from start.
 */
final class ProviderModels implements ConversationModels {

    private final ProviderRegistry providers;
    private final CommandRunner commands;
    private final int maxIterations;
    private final Map<String, AgentLoop> loops = new ConcurrentHashMap<>();

    ProviderModels(ProviderRegistry providers, CommandRunner commands, int maxIterations) {
        this.providers = providers;
        this.commands = commands;
        this.maxIterations = maxIterations;
    }

    @Override
    public Choice choose(String provider, String model) {
        String name = provider == null ? providers.defaultName() : provider;
        ConfiguredProvider chosen = providers.find(name).orElseThrow(() -> new ConversationException(ConversationException.Kind.INVALID,
                "No provider is named " + abbreviate(name) + "; configured: " + String.join(", ", providers.names())));
        if (model != null && !model.equals(chosen.modelName())) {
            throw new ConversationException(ConversationException.Kind.INVALID, "Provider " + name + " runs model "
                    + chosen.modelName() + ", not " + abbreviate(model) + "; for another model configure a provider for it");
        }
        return new Choice(name, chosen.modelName());
    }

    @Override
    public AgentLoop loop(Choice choice) {
        return loops.computeIfAbsent(choice.provider(), name -> new AgentLoop(configured(choice).model(), commands, maxIterations));
    }

    @Override
    public JsonNode nextRequestMessages(Choice choice, ModelCall call) {
        return configured(choice).nextRequestMessages().apply(call);
    }

    /** The provider a stored conversation names, if the configuration still has it with the same model. */
    private ConfiguredProvider configured(Choice choice) {
        return providers.find(choice.provider())
                .filter(provider -> provider.modelName().equals(choice.model()))
                .orElseThrow(() -> new ConversationException(ConversationException.Kind.PROVIDER_GONE,
                        "This conversation runs on provider " + choice.provider() + " with model " + choice.model()
                                + ", which this server no longer has configured; start a new conversation"));
    }

    private static String abbreviate(String text) {
        return text.length() > 64 ? text.substring(0, 64) + "…" : text;
    }
}
