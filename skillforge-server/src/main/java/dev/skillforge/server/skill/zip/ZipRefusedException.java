package dev.skillforge.server.skill.zip;

/**
 * A zip refused before anything of it was written: what is wrong with it, in a sentence a person can
 * act on, and whether it is too large (413) or malformed or hostile (400).
 */
public final class ZipRefusedException extends RuntimeException {

    private final boolean tooLarge;

    ZipRefusedException(String message) {
        this(message, false);
    }

    ZipRefusedException(String message, boolean tooLarge) {
        super(message, null, false, false);
        this.tooLarge = tooLarge;
    }

    static ZipRefusedException tooLarge(String message) {
        return new ZipRefusedException(message, true);
    }

    public boolean tooLarge() {
        return tooLarge;
    }
}
