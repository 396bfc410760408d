package dev.skillforge.server.conversation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.core.agent.AgentLoop;
import dev.skillforge.core.agent.EventSink;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.server.price.TokenPrices;

import dev.skillforge.core.transcript.Attachment;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * The model side of conversations: a conversation is fixed to one configured provider (with its
 * model) when it starts, since a prompt cache cannot carry over a change; switching means a new
 * conversation.
 */
public interface ConversationModels {

    /** A configured provider by name and the model it runs. */
    record Choice(String provider, String model) {
    }

    /**
     * What a new conversation is fixed to.
     *
     * @param provider a configured provider's name, or {@code null} for the default
     * @param model    {@code null}, or the chosen provider's model (a different model is a differently
     *                 named provider in the configuration)
     * @throws ConversationException INVALID naming what is configured
     */
    Choice choose(String provider, String model);

    /**
     * The loop that runs turns on {@code choice}.
     *
     * @throws ConversationException PROVIDER_GONE when it is not configured any more
     */
    AgentLoop loop(Choice choice);

    /** The messages array {@code choice}'s provider would receive for {@code call}. */
    JsonNode nextRequestMessages(Choice choice, ModelCall call);

    /** What {@code choice}'s model's tokens cost, when known (a turn's and a conversation's cost follow); by default unknown. */
    default Optional<TokenPrices> prices(Choice choice) {
        return Optional.empty();
    }

    /**
     * Why documents of {@code text} (their wrapped text, as the model reads it) cannot be sent to {@code choice}'s model,
     * or {@code null} when they fit; by default they always do (nothing is known of the model's window).
     */
    default String refusalToFit(Choice choice, String text) {
        return null;
    }

    /**
     * Checks that {@code choice}'s model may be sent the images {@code added} to a conversation whose model already sees
     * {@code earlier}; by default every image is (nothing is known of the model).
     *
     * @throws dev.skillforge.server.document.DocumentException when the model sees no images, or they pass its API's limits
     */
    default void requireSeen(Choice choice, List<Attachment> earlier, List<Attachment> added) {
    }

    /**
     * Tells {@code choice}'s prefix guard that {@code prefix} is what a fork's requests must extend (what it
     * shares with the conversation it was copied from); by default nothing is checked.
     */
    default void expectPrefix(Choice choice, ModelCall prefix) {
    }

    /**
     * Observes one turn of conversation {@code conversationId} of {@code person} on {@code choice} that starts now with
     * their {@code message} (the metrics, the traces); by default nothing. Made on the thread that starts the turn.
     */
    default EventSink runObserver(Choice choice, String conversationId, String person, String message) {
        return event -> { };
    }

    /** One provider for every conversation (tests, benchmarks). */
    static ConversationModels single(String provider, String model, AgentLoop loop, Function<ModelCall, JsonNode> messages) {
        Choice only = new Choice(provider, model);
        return new ConversationModels() {
            @Override
            public Choice choose(String requestedProvider, String requestedModel) {
                if ((requestedProvider != null && !requestedProvider.equals(provider))
                        || (requestedModel != null && !requestedModel.equals(model))) {
                    throw new ConversationException(ConversationException.Kind.INVALID,
                            "Only provider " + provider + " with model " + model + " is configured");
                }
                return only;
            }

            @Override
            public AgentLoop loop(Choice choice) {
                if (!Objects.equals(choice, only)) {
                    throw new ConversationException(ConversationException.Kind.PROVIDER_GONE,
                            "This conversation's provider " + choice.provider() + " is not configured here; start a new conversation");
                }
                return loop;
            }

            @Override
            public JsonNode nextRequestMessages(Choice choice, ModelCall call) {
                return messages.apply(call);
            }
        };
    }
}
