package dev.skillforge.server.document;

/**
 * An attachment (or a fetched page) that is refused: {@link Kind} says why in terms an API maps to a
 * status, {@code code} is the stable error code, the message names the file and what is wrong.
 */
public final class DocumentException extends RuntimeException {

    public enum Kind {
        /** Malformed: bad base64, a hostile name, an empty file, a corrupt PDF, a PDF without text. */
        INVALID,
        /** Over a limit (per file, per message, extracted text, pages, decoded size, work, time). */
        TOO_LARGE,
        /** A type SkillForge does not read. */
        UNSUPPORTED,
        /** The server is reading as many files as it reads at once, and this one waited its turn too long: send it again. */
        BUSY,
        /** Whoever asked went away (the request ended, the call or the turn was stopped) before the file was read. */
        STOPPED
    }

    private final Kind kind;
    private final String code;

    public DocumentException(Kind kind, String code, String message) {
        super(message, null, false, false);
        this.kind = kind;
        this.code = code;
    }

    public Kind kind() {
        return kind;
    }

    public String code() {
        return code;
    }

    static DocumentException invalid(String message) {
        return new DocumentException(Kind.INVALID, "invalid_attachment", message);
    }

    static DocumentException tooLarge(String message) {
        return new DocumentException(Kind.TOO_LARGE, "attachment_too_large", message);
    }

    static DocumentException unsupported(String message) {
        return new DocumentException(Kind.UNSUPPORTED, "unsupported_attachment_type", message);
    }

    static DocumentException busy(String message) {
        return new DocumentException(Kind.BUSY, "documents_busy", message);
    }

    static DocumentException stopped(String message) {
        return new DocumentException(Kind.STOPPED, "request_ended", message);
    }
}
