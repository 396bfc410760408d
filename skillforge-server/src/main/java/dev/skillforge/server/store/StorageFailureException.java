package dev.skillforge.server.store;

/**
 * The database answers but cannot write: its disk is full or failing (SQLite's {@code SQLITE_FULL} or
 * {@code SQLITE_IOERR}, PostgreSQL's {@code disk_full} or {@code io_error}). Unlike an unreachable database this
 * does not pass by itself, and unlike a refused write ({@link StoreRejectedException}) the same write succeeds once
 * an operator has made room: the {@link StoreWriter} keeps it and retries, and says what is wrong. The message
 * never holds a password.
 */
public class StorageFailureException extends StoreException {

    public StorageFailureException(String message, Throwable cause) {
        super(message, cause);
    }
}
