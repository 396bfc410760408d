package dev.skillforge.server.store;

/**
 * The database refused the data of a write itself (a constraint such as {@code NOT NULL}, or a
 * value it cannot store verbatim), as opposed to being unreachable or busy. Retrying the same
 * writes cannot succeed, so the {@link StoreWriter} isolates and drops the refused write instead
 * of retrying it forever and holding every later write back. The message never holds a password.
 */
class StoreRejectedException extends StoreException {

    public StoreRejectedException(String message, Throwable cause) {
        super(message, cause);
    }
}
