package dev.skillforge.server.exec;

import dev.skillforge.core.transcript.StorableText;

/**
 * A command line that will not run, with a message the model can read and act on. Thrown by the
 * checks ({@link CommandLine}, {@link CommandPolicy}, {@link Workspace}) before any process starts;
 * {@link ProcessRunner} turns it into a result with exit code {@value ProcessRunner#EXIT_REFUSED}.
 */
final class CommandRefused extends Exception {

    /** Why a command was refused, which decides what the model is told besides the message. */
    public enum Kind {
        /** Shell syntax or a malformed line ({@link CommandLine}). */
        SYNTAX,
        /** The program, or one of its arguments, is not on the allow-list ({@link CommandPolicy}); the message says what is. */
        NOT_ALLOWED,
        /** A path that leaves the workspace, or a link in it that does ({@link Workspace}). */
        PATH,
        /** The workspace holds a link that leads out, or more than its quota ({@link Workspace#inspect()}). */
        WORKSPACE
    }

    private final Kind kind;

    public CommandRefused(Kind kind, String message) {
        super(message, null, false, false);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }

    /** A word of the command line as a refusal quotes it: in single quotes, at most 80 characters (never half an emoji). */
    static String quote(String text) {
        return "'" + StorableText.abbreviate(text, 80) + "'";
    }
}
