package dev.skillforge.server.error;

/**
 * A setting, a providers file or a command line that cannot work: the server does not start, and
 * says why in one line that names what to change ({@code FORGE_PORT=…}, the file's field, the
 * option). Thrown at start only; never for a request.
 */
public final class ConfigurationException extends IllegalArgumentException {

    public ConfigurationException(String message) {
        super(message);
    }

    public ConfigurationException(String message, Throwable cause) {
        super(message, cause);
    }
}
