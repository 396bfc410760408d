package dev.skillforge.server.document;

/**
 * The limits on attachments, the same through every door (documented in docs/api.md), and on reading them: every
 * one is checked while a file is read, so a hostile file is refused before it costs more than these.
 */
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
    /**
     * What the streams of one PDF may decode to together, whatever their filters (each stream counted once, every
     * filter of its chain counted): more is a decompression bomb, not a document.
     */
    public static final long MAX_PDF_DECODED_BYTES = 64L * 1024 * 1024;
    /**
     * What a PDF's object and cross-reference streams may decode to together: PDFBox keeps what they hold as objects,
     * which take up to twenty times their bytes on the heap.
     */
    public static final long MAX_PDF_STRUCTURE_BYTES = 4L * 1024 * 1024;
    /** Drawing operators PDFBox runs for one PDF, those of forms drawn again and again counted each time. */
    public static final long MAX_PDF_OPERATORS = 5_000_000;
    /** Forms one PDF draws, a form drawn by a form drawn twice counted twice: each costs as much as many operators. */
    public static final long MAX_PDF_FORMS = 50_000;
    /** Bytes of a content stream between two operators: operands PDFBox keeps until the operator comes. */
    public static final int MAX_PDF_OPERAND_BYTES = 1024 * 1024;
    /** Characters drawn on one PDF page, duplicates included: PDFBox keeps each until the page ends. */
    public static final int MAX_PDF_PAGE_GLYPHS = 100_000;
    /** Characters drawn in one PDF, duplicates included. */
    public static final int MAX_PDF_GLYPHS = 4 * MAX_TEXT_CHARS;
    /** Elements of one HTML file or page, as jsoup builds them (a tag can make several). */
    public static final int MAX_HTML_ELEMENTS = 200_000;
    /** Quote levels an HTML page's Markdown shows; deeper quotes keep their text at this depth. */
    public static final int MAX_QUOTE_DEPTH = 8;
    /** Time to read the files of one request (one message's, or a stateless request's whole history). */
    public static final long MAX_EXTRACT_MILLIS = 20_000;
    /** Files read at once on this server: the rest wait their turn. */
    public static final int EXTRACTION_WORKERS = 2;
    /** Requests that may wait for a turn to read their files; more are refused at once as busy. */
    public static final int MAX_WAITING_EXTRACTIONS = 32;
    /** How long a request waits for its turn before it is refused as busy. */
    public static final long MAX_EXTRACTION_WAIT_MILLIS = 20_000;
    /**
     * Pixels on either side of an image (the strictest documented provider limit; the other providers scale larger ones
     * down): a header that claims more is refused, so no viewer or provider is handed a decompression bomb.
     */
    public static final int MAX_IMAGE_SIDE = 8000;
    /** Characters of a file name. */
    public static final int MAX_NAME_CHARS = 200;

    private DocumentLimits() {
    }
}
