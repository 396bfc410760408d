package dev.skillforge.server.provider;

import dev.skillforge.core.agent.ModelReply;
import dev.skillforge.core.agent.ProviderException;

/**
 * One wire format's reading of a streamed answer, event by event; {@link ProviderCalls#stream} is the loop around it,
 * the same for every format. A parser is used for one answer.
 */
public interface StreamParser {

    /**
     * Reads one event's data, telling the listener what it holds.
     *
     * @return false once the stream said it is complete: nothing after it is read
     * @throws ProviderException for an error the stream carries or data the format does not allow
     */
    boolean accept(String data) throws ProviderException;

    /**
     * The body ended, or {@link #accept} said the stream is complete.
     *
     * @return whether the stream ended at its format's end marker before the body's end, so that the rest of the body
     *         can be read in the background and the connection reused
     * @throws ProviderException {@code provider_stream_truncated} when the format's end never came
     */
    boolean finish() throws ProviderException;

    /**
     * What was answered, once {@link #finish} passed.
     *
     * @throws ProviderException for an answer the model did not finish (an output limit, a content filter)
     */
    ModelReply reply() throws ProviderException;
}
