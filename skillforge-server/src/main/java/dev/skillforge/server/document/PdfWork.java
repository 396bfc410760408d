package dev.skillforge.server.document;

import org.apache.pdfbox.cos.COSDictionary;
import org.apache.pdfbox.cos.COSName;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * What reading one PDF has cost so far, against its limits ({@link DocumentLimits}), and its deadline. The first limit
 * passed is kept and thrown again at every later check: PDFBox catches some failures and goes on, but the extraction
 * does not get past its next check.
 */
final class PdfWork {

    /** How often (in bytes decoded or parsed, in operators) the deadline is looked at: often enough, and cheaply. */
    private static final int CHECK_EVERY_BYTES = 64 * 1024;
    private static final int CHECK_EVERY_OPERATORS = 256;
    /**
     * PDFBox keeps every name it has read in a map for the life of the JVM; cleared this often (in operators) and when a
     * PDF is done, so a stream of distinct names costs neither the extraction nor the server its memory. Names are
     * compared by value, so nothing that holds one notices.
     */
    private static final int FORGET_NAMES_EVERY_OPERATORS = 65_536;

    private final String what;
    private final Deadline deadline;
    /** Per stream, the last filter of its chain already counted: a stream decoded again is not counted again. */
    private final Map<COSDictionary, Integer> countedStages = new IdentityHashMap<>();
    private DocumentException refusal;
    private long decoded;
    private long structure;
    private long unchecked;
    private long operators;
    private long operandBytes;
    private long forms;
    private int pages;
    private int pageGlyphs;
    private long glyphs;

    /** @param what the file, as messages name it ({@code 'notes.pdf'}) */
    PdfWork(String what, Deadline deadline) {
        this.what = what;
        this.deadline = deadline;
    }

    /** @throws DocumentException the limit already passed, or the deadline's */
    void check() {
        if (refusal != null) {
            throw refusal;
        }
        try {
            deadline.check(what);
        } catch (DocumentException e) {
            throw refuse(e);
        }
    }

    /** The limit passed, if one was: PDFBox may have caught it and finished anyway. */
    DocumentException refusal() {
        return refusal;
    }

    /**
     * Where filter {@code stage} of {@code stream}'s chain writes what it decodes: counted the first time the stream is
     * decoded (every filter of its chain), and the deadline looked at as it goes, every time.
     */
    OutputStream decoding(OutputStream decoded, COSDictionary stream, int stage) {
        check();
        boolean first = stage > countedStages.getOrDefault(stream, -1);
        if (first) {
            countedStages.put(stream, stage);
        }
        boolean isStructure = COSName.OBJ_STM.equals(stream.getCOSName(COSName.TYPE)) || COSName.XREF.equals(stream.getCOSName(COSName.TYPE));
        return new FilterOutputStream(decoded) {
            @Override
            public void write(int b) throws IOException {
                counted(1);
                out.write(b);
            }

            @Override
            public void write(byte[] bytes, int offset, int length) throws IOException {
                counted(length);
                out.write(bytes, offset, length);
            }

            private void counted(int n) {
                if (first) {
                    addDecoded(n, isStructure);
                }
                uncheckedBytes(n);
            }
        };
    }

    private void addDecoded(int n, boolean isStructure) {
        decoded += n;
        if (decoded > DocumentLimits.MAX_PDF_DECODED_BYTES) {
            throw refuse(DocumentException.tooLarge(what + " decodes to more than " + mib(DocumentLimits.MAX_PDF_DECODED_BYTES)
                    + " MiB: refused as a zip bomb"));
        }
        if (isStructure) {
            structure += n;
            if (structure > DocumentLimits.MAX_PDF_STRUCTURE_BYTES) {
                throw refuse(DocumentException.tooLarge("The object streams of " + what + " decode to more than "
                        + mib(DocumentLimits.MAX_PDF_STRUCTURE_BYTES) + " MiB: refused as a bomb of objects"));
            }
        }
    }

    /** {@code n} bytes of a content stream parsed: operands, until the next operator. */
    void contentBytes(int n) {
        operandBytes += n;
        if (operandBytes > DocumentLimits.MAX_PDF_OPERAND_BYTES) {
            throw refuse(DocumentException.tooLarge(what + " has more than " + mib(DocumentLimits.MAX_PDF_OPERAND_BYTES)
                    + " MiB of operands without an operator in a content stream: it is not a document"));
        }
        uncheckedBytes(n);
    }

    private void uncheckedBytes(int n) {
        unchecked += n;
        if (unchecked >= CHECK_EVERY_BYTES) {
            unchecked = 0;
            check();
        }
    }

    /** An operator about to run, in a page, a form or any content stream. */
    void operator() {
        operandBytes = 0;
        operators++;
        if (operators > DocumentLimits.MAX_PDF_OPERATORS) {
            throw refuse(DocumentException.tooLarge(what + " takes more than " + DocumentLimits.MAX_PDF_OPERATORS
                    + " drawing operations to read: it is refused as too complex"));
        }
        if (operators % FORGET_NAMES_EVERY_OPERATORS == 0) {
            forgetNames();
        }
        if (operators % CHECK_EVERY_OPERATORS == 0) {
            check();
        }
    }

    /** A form about to be drawn (its operators are counted as they run). */
    void form() {
        if (++forms > DocumentLimits.MAX_PDF_FORMS) {
            throw refuse(DocumentException.tooLarge(what + " draws forms more than " + DocumentLimits.MAX_PDF_FORMS
                    + " times (forms drawn within forms?): it is refused as too complex"));
        }
        check();
    }

    /** A page about to be read. */
    void page() {
        check();
        pages++;
        pageGlyphs = 0;
        if (pages > DocumentLimits.MAX_PDF_PAGES) {
            throw refuse(DocumentException.tooLarge(what + " has more than " + DocumentLimits.MAX_PDF_PAGES + " pages"));
        }
    }

    /** A character drawn on the current page, to be kept until the page ends. */
    void glyph() {
        glyphs++;
        if (++pageGlyphs > DocumentLimits.MAX_PDF_PAGE_GLYPHS) {
            throw refuse(DocumentException.tooLarge(what + " draws more than " + DocumentLimits.MAX_PDF_PAGE_GLYPHS
                    + " characters on page " + pages + ": it is not a page of text"));
        }
        if (glyphs > DocumentLimits.MAX_PDF_GLYPHS) {
            throw refuse(DocumentException.tooLarge(what + " draws more than " + DocumentLimits.MAX_PDF_GLYPHS
                    + " characters, many times its limit of text"));
        }
    }

    /** Drops PDFBox's map of every name it has read (see {@link #FORGET_NAMES_EVERY_OPERATORS}). */
    static void forgetNames() {
        COSName.clearResources();
    }

    private DocumentException refuse(DocumentException e) {
        if (refusal == null) {
            refusal = e;
        }
        return refusal;
    }

    private static long mib(long bytes) {
        return bytes / (1024 * 1024);
    }
}
