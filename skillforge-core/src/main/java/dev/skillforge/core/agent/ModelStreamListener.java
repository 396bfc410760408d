package dev.skillforge.core.agent;

/**
 * Receives a model's output as it streams. Called on the thread that called the provider.
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
