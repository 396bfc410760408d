package dev.skillforge.server.store;

/** The database could not be reached, or refused a statement. The message never holds a password. */
public class StoreException extends RuntimeException {

    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
