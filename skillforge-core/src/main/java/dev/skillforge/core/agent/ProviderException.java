package dev.skillforge.core.agent;

/**
 * A model call failed. {@code code} is a short stable word for clients (for example
 * {@code provider_http_error}, {@code provider_stream_error}, {@code provider_timeout}); the message
 * says what happened in words a person can act on, including the provider's own message.
 */
public class ProviderException extends Exception {

    private final String code;

    public ProviderException(String code, String message) {
        super(message);
        this.code = code;
    }

    public ProviderException(String code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    public String code() {
        return code;
    }
}
