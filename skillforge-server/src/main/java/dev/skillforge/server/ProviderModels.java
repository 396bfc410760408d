package dev.skillforge.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.core.agent.AgentLoop;
import dev.skillforge.core.agent.EventSink;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.agent.TurnLimits;
import dev.skillforge.core.context.ContextWindow;
import dev.skillforge.core.transcript.Attachment;
import dev.skillforge.core.transcript.StorableText;
import dev.skillforge.server.cache.CacheDebug;
import dev.skillforge.server.cache.PrefixGuard;
import dev.skillforge.server.cache.TokenEstimate;
import dev.skillforge.server.conversation.ConversationException;
import dev.skillforge.server.conversation.ConversationModels;
import dev.skillforge.server.metrics.ServerMetrics;
import dev.skillforge.server.provider.ConfiguredProvider;
import dev.skillforge.server.provider.LoggedFailures;
import dev.skillforge.server.provider.ProviderRegistry;
import dev.skillforge.server.cache.CacheRule;
import dev.skillforge.server.price.TokenPrices;
import dev.skillforge.server.trace.Tracing;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Conversations' providers from the configured {@link ProviderRegistry}: a conversation names one
 * provider (the default if it names none) and runs that provider's model. A different model is a
 * differently named provider in the configuration, so every conversation's client exists from start.
 *
 * <p>Conversation loops call their provider through a {@link PrefixGuard} (the prompt-cache invariant
 * checked on every request, breaks counted in the metrics); the stateless loop only logs the
 * {@code [Cache Debug]} line, since its cache key is shared by unrelated conversations. Conversation
 * loops keep to their provider's context window ({@link ContextWindow}); stateless clients send their
 * own history and manage its size themselves.
 */
final class ProviderModels implements ConversationModels {

    private final ProviderRegistry providers;
    private final TurnLimits turnLimits;
    private final ServerMetrics metrics;
    private final boolean strict;
    private final Tracing tracing;
    private final Map<String, AgentLoop> loops = new ConcurrentHashMap<>();
    private final Map<String, PrefixGuard> guards = new ConcurrentHashMap<>();

    /** @param strict a cache break fails the call ({@link PrefixGuard#STRICT_PROPERTY}) instead of being only logged and counted */
    ProviderModels(ProviderRegistry providers, TurnLimits turnLimits, ServerMetrics metrics, boolean strict, Tracing tracing) {
        this.providers = providers;
        this.turnLimits = turnLimits;
        this.metrics = metrics;
        this.strict = strict;
        this.tracing = tracing;
    }

    /** The loop of stateless {@code /api/agent} turns: the default provider, without a prefix guard. */
    AgentLoop statelessLoop() {
        ConfiguredProvider provider = providers.defaultProvider();
        return new AgentLoop(new CacheDebug(new LoggedFailures(provider.model(), provider.name()), provider.name(), provider.modelName()),
                turnLimits);
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
        return loops.computeIfAbsent(choice.provider(), name -> {
            ConfiguredProvider provider = configured(choice);
            return new AgentLoop(guard(choice), turnLimits, new ContextWindow(provider.contextWindow(), TokenEstimate::count));
        });
    }

    /**
     * Attached documents must fit in the share of the context window a context cut keeps ({@link ContextWindow#KEEP_UP_TO}):
     * more could never be sent whole, and the turn would fail at the provider instead of here, clearly.
     */
    @Override
    public String refusalToFit(Choice choice, String text) {
        int window = configured(choice).contextWindow();
        long budget = (long) (ContextWindow.KEEP_UP_TO * window);
        int tokens = TokenEstimate.count(text);
        if (tokens <= budget) {
            return null;
        }
        return "The attached documents are about " + tokens + " tokens; " + choice.model() + "'s context window is " + window
                + " tokens, and documents may take up to " + budget + " of them: attach less, or split it over several messages";
    }

    @Override
    public void requireSeen(Choice choice, List<Attachment> earlier, List<Attachment> added) {
        configured(choice).vision().check(choice.model(), earlier, added);
    }

    @Override
    public void expectPrefix(Choice choice, ModelCall prefix) {
        guard(choice).expect(prefix);
    }

    /** The provider's one prefix guard, which every conversation on it goes through. */
    private PrefixGuard guard(Choice choice) {
        return guards.computeIfAbsent(choice.provider(), name -> {
            ConfiguredProvider provider = configured(choice);
            return new PrefixGuard(new LoggedFailures(provider.model(), provider.name()), provider.name(), provider.modelName(), provider.nextRequestMessages(),
                    cacheRule(provider), strict, tracing.guardObserver(metrics));
        });
    }

    @Override
    public EventSink runObserver(Choice choice, String conversationId, String person, String message) {
        return observer(choice.provider(), preset(choice.provider()), choice.model(), conversationId, person, ServerMetrics.CONVERSATION,
                message);
    }

    /** The observer of one stateless turn of {@code person} that starts now (on the default provider) with their {@code message}. */
    EventSink statelessObserver(String person, String message) {
        ConfiguredProvider provider = providers.defaultProvider();
        return observer(provider.name(), provider.preset(), provider.modelName(), null, person, ServerMetrics.STATELESS, message);
    }

    /** The metrics' observer, and the trace's beside it when tracing is on. */
    private EventSink observer(String provider, String preset, String model, String conversationId, String person, String mode,
                               String message) {
        EventSink measured = metrics.runObserver(provider, model, mode);
        if (!tracing.enabled()) {
            return measured;
        }
        EventSink traced = tracing.runObserver(provider, preset, model, conversationId, person, mode, message);
        return event -> {
            measured.accept(event);
            traced.accept(event);
        };
    }

    private String preset(String provider) {
        return providers.find(provider).map(ConfiguredProvider::preset).orElse(provider);
    }

    /** The cache rule a provider is known to follow: the simulation's (by its wire format and model); unknown for real providers. */
    static CacheRule cacheRule(ConfiguredProvider provider) {
        return provider.simulated() ? ProviderFactory.simulatedCacheRule(provider) : null;
    }

    @Override
    public Optional<TokenPrices> prices(Choice choice) {
        return providers.find(choice.provider()).filter(provider -> provider.modelName().equals(choice.model()))
                .map(ConfiguredProvider::prices);
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
        return StorableText.abbreviate(text, 64);
    }
}
