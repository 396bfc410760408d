package dev.skillforge.server.document;

/** The limits on attachments, the same through every door (documented in docs/api.md). */
public final class DocumentLimits {

    /** One file: 5 MiB. */
    public static final int MAX_FILE_BYTES = 5 * 1024 * 1024;
    /** All files of one message together: 10 MiB. */
    public static final int MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
    /** Files per message. */
    public static final int MAX_FILES = 10;
    /** The extracted text of one file, in characters (a huge page or a padded PDF is refused, not cut). */
    public static final int MAX_TEXT_CHARS = 400_000;
    /** The extracted text of all files of one message together, in characters. */
    public static final int MAX_MESSAGE_TEXT_CHARS = 800_000;
    /** Pages of one PDF. */
    public static final int MAX_PDF_PAGES = 1_000;
    /** What all compressed streams of one PDF may inflate to together: more is a zip bomb, not a document. */
    public static final long MAX_PDF_INFLATED_BYTES = 64L * 1024 * 1024;
    /** Time to extract one file's text. */
    public static final long MAX_EXTRACT_MILLIS = 20_000;
    /** Characters of a file name. */
    public static final int MAX_NAME_CHARS = 200;

    private DocumentLimits() {
    }
}
