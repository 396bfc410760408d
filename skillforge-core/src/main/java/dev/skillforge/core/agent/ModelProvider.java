package dev.skillforge.core.agent;

/**
 * The port to a language model. An implementation streams one completion for the given call,
 * reports text and reasoning as it arrives, and returns what must be stored beside the output.
 */
public interface ModelProvider {

    /**
     * Streams one model call.
     *
     * @throws ProviderException when the call fails or is cancelled; text already given to the
     *                           listener is then not a complete answer
     */
    ModelReply stream(ModelCall call, ModelStreamListener listener, Cancellation cancellation) throws ProviderException;
}
