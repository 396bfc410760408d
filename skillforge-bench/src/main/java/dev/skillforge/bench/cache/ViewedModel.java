package dev.skillforge.bench.cache;

import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.agent.ModelProvider;
import dev.skillforge.core.agent.ModelReply;
import dev.skillforge.core.agent.ModelStreamListener;
import dev.skillforge.core.agent.ProviderException;
import dev.skillforge.core.context.ContextView;
import dev.skillforge.core.transcript.Transcript;

/**
 * A provider client that sends a baseline's view of each call's transcript instead of the transcript.
 * The server's loop and its prefix guard sit above it, so the guard must check {@link #viewed} calls too.
 */
record ViewedModel(ModelProvider client, ContextView view) implements ModelProvider {

    @Override
    public ModelReply stream(ModelCall call, ModelStreamListener listener, Cancellation cancellation) throws ProviderException {
        return client.stream(viewed(call), listener, cancellation);
    }

    /** The call as the baseline sends it. */
    ModelCall viewed(ModelCall call) {
        return new ModelCall(call.systemPrompt(), view.prepare(new Transcript(call.entries()), call.systemPrompt()), call.cacheKey(),
                call.iteration());
    }
}
