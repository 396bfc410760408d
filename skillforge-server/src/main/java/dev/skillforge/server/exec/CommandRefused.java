package dev.skillforge.server.exec;

/**
 * A command line that will not run, with a message the model can read and act on. Thrown by the
 * checks ({@link CommandLine}, {@link CommandPolicy}, {@link Workspace}) before any process starts;
 * {@link ProcessRunner} turns it into a result with exit code {@value ProcessRunner#EXIT_REFUSED}.
 */
public final class CommandRefused extends Exception {

    public CommandRefused(String message) {
        super(message, null, false, false);
    }
}
