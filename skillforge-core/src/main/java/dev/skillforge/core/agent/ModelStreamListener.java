package dev.skillforge.core.agent;

/**
 * Receives a model's output as it streams: one call at a time, in order, and none after the provider's {@code stream}
 * returned. A provider may call it on the thread that reads its connection rather than the caller's, so it must not
 * block.
 *
 * <p>The listener may end the call: a {@link ProviderException} it throws (an answer past the
 * turn's size limit) is to leave the provider's {@code stream} as it is, closing the connection,
 * like a failure of the provider's own.
 */
public interface ModelStreamListener {

    void onText(String chunk) throws ProviderException;

    void onReasoning(String chunk) throws ProviderException;

    void onSource(String url, String title);
}
