package dev.skillforge.server.document;

import org.apache.pdfbox.Loader;
import org.apache.pdfbox.contentstream.operator.Operator;
import org.apache.pdfbox.cos.COSBase;
import org.apache.pdfbox.io.MemoryUsageSetting;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.encryption.InvalidPasswordException;
import org.apache.pdfbox.pdmodel.graphics.form.PDFormXObject;
import org.apache.pdfbox.pdmodel.graphics.form.PDTransparencyGroup;
import org.apache.pdfbox.text.PDFTextStripper;
import org.apache.pdfbox.text.TextPosition;

import java.io.IOException;
import java.io.Writer;
import java.util.List;

/**
 * The text of a PDF, with Apache PDFBox, within the limits of {@link DocumentLimits} checked while PDFBox works
 * ({@link PdfWork}): what its streams decode to whatever their filters ({@link PdfDecoding}), the operators it runs
 * (forms drawn by forms included), the operands it holds, the characters a page keeps, pages, text, and the deadline,
 * looked at every few operators and every few KB decoded or parsed.
 */
final class PdfText {

    private PdfText() {
    }

    /** @throws DocumentException for a file that is not a readable PDF or passes a limit */
    static String extract(String name, byte[] data, Deadline deadline) {
        String what = "'" + name + "'";
        if (data.length < 5 || !new String(data, 0, 5, java.nio.charset.StandardCharsets.US_ASCII).equals("%PDF-")) {
            throw DocumentException.invalid(what + " is not a PDF (it does not start with %PDF-)");
        }
        PdfWork work = new PdfWork(what, deadline);
        try (PdfDecoding.Counting counting = PdfDecoding.countFor(work);
             PDDocument document = Loader.loadPDF(data, "", null, null,
                     MemoryUsageSetting.setupMainMemoryOnly(DocumentLimits.MAX_PDF_DECODED_BYTES).streamCache)) {
            work.check();
            int pages = document.getNumberOfPages();
            if (pages > DocumentLimits.MAX_PDF_PAGES) {
                throw DocumentException.tooLarge(what + " has " + pages + " pages; the limit is " + DocumentLimits.MAX_PDF_PAGES);
            }
            LimitedWriter text = new LimitedWriter(what);
            new Stripper(work).writeText(document, text);
            work.check();
            String extracted = text.out.toString().strip();
            if (extracted.isEmpty()) {
                throw DocumentException.invalid(what + " has no text to read (a scanned PDF holds only images; run OCR first)");
            }
            return extracted;
        } catch (InvalidPasswordException e) {
            throw DocumentException.invalid(what + " is protected by a password");
        } catch (IOException | RuntimeException e) {
            if (work.refusal() != null) {
                throw work.refusal(); // what PDFBox made of it (a failure, or a file it gave up on) came after
            }
            if (e instanceof DocumentException refused) {
                throw refused;
            }
            throw DocumentException.invalid(what + " is not a readable PDF (" + reason(e) + ")");
        } finally {
            PdfWork.forgetNames();
        }
    }

    private static String reason(Exception e) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return dev.skillforge.core.transcript.StorableText.abbreviate(message, 120);
    }

    /** PDFBox's text stripper, every page, form, operator and character of it counted. */
    private static final class Stripper extends PDFTextStripper {
        private final PdfWork work;

        Stripper(PdfWork work) {
            this.work = work;
            setSortByPosition(false);
            setLineSeparator("\n"); // not the platform's: the same text on every server
            setPageEnd("\n\n"); // pages apart by a blank line
        }

        @Override
        public void processPage(PDPage page) throws IOException {
            work.page();
            super.processPage(MeteredContent.page(page, work));
        }

        @Override
        public void showForm(PDFormXObject form) throws IOException {
            work.form();
            super.showForm(MeteredContent.form(form, work));
        }

        @Override
        public void showTransparencyGroup(PDTransparencyGroup group) throws IOException {
            work.form();
            super.showTransparencyGroup(MeteredContent.group(group, work));
        }

        @Override
        protected void processOperator(Operator operator, List<COSBase> operands) throws IOException {
            work.operator();
            super.processOperator(operator, operands);
        }

        @Override
        protected void processTextPosition(TextPosition text) {
            work.glyph();
            super.processTextPosition(text);
        }
    }

    /** Refuses text past {@link DocumentLimits#MAX_TEXT_CHARS} as it is written. */
    private static final class LimitedWriter extends Writer {
        private final StringBuilder out = new StringBuilder();
        private final String what;

        LimitedWriter(String what) {
            this.what = what;
        }

        @Override
        public void write(char[] buffer, int offset, int length) {
            if (out.length() + length > DocumentLimits.MAX_TEXT_CHARS) {
                throw DocumentException.tooLarge(what + " holds more than " + DocumentLimits.MAX_TEXT_CHARS + " characters of text");
            }
            out.append(buffer, offset, length);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    }
}
