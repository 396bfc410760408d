package dev.skillforge.server.document;

import org.apache.pdfbox.Loader;
import org.apache.pdfbox.io.MemoryUsageSetting;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.encryption.InvalidPasswordException;
import org.apache.pdfbox.text.PDFTextStripper;

import java.io.IOException;
import java.io.Writer;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * The text of a PDF, with Apache PDFBox. Hostile files are refused before or while they are read: every
 * compressed stream is inflated once, counting and discarding, before PDFBox sees the file (a zip bomb is
 * refused at {@link DocumentLimits#MAX_PDF_INFLATED_BYTES} instead of filling the heap); PDFBox keeps its
 * buffers in a bounded amount of memory; pages, text length and time are limited.
 */
final class PdfText {

    private static final byte[] STREAM = "stream".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private PdfText() {
    }

    static String extract(String name, byte[] data, long deadlineNanos) {
        if (data.length < 5 || !new String(data, 0, 5, java.nio.charset.StandardCharsets.US_ASCII).equals("%PDF-")) {
            throw DocumentException.invalid("'" + name + "' is not a PDF (it does not start with %PDF-)");
        }
        requireNoBomb(name, data);
        try (PDDocument document = Loader.loadPDF(data, "", null, null,
                MemoryUsageSetting.setupMainMemoryOnly(DocumentLimits.MAX_PDF_INFLATED_BYTES).streamCache)) {
            int pages = document.getNumberOfPages();
            if (pages > DocumentLimits.MAX_PDF_PAGES) {
                throw DocumentException.tooLarge("'" + name + "' has " + pages + " pages; the limit is " + DocumentLimits.MAX_PDF_PAGES);
            }
            LimitedWriter text = new LimitedWriter(name);
            new Stripper(name, deadlineNanos).writeText(document, text);
            String extracted = text.out.toString().strip();
            if (extracted.isEmpty()) {
                throw DocumentException.invalid("'" + name + "' has no text to read (a scanned PDF holds only images; run OCR first)");
            }
            return extracted;
        } catch (InvalidPasswordException e) {
            throw DocumentException.invalid("'" + name + "' is protected by a password");
        } catch (IOException | RuntimeException e) {
            if (e instanceof DocumentException refused) {
                throw refused;
            }
            throw DocumentException.invalid("'" + name + "' is not a readable PDF (" + reason(e) + ")");
        }
    }

    /** Inflates every stream that starts like zlib data, counting: a PDF whose streams inflate past the limit is a bomb. */
    private static void requireNoBomb(String name, byte[] data) {
        long inflated = 0;
        byte[] sink = new byte[64 * 1024];
        for (int at = indexOf(data, 0); at >= 0; at = indexOf(data, at + 1)) {
            int start = at + STREAM.length;
            if (start < data.length && data[start] == '\r') {
                start++;
            }
            if (start >= data.length || data[start] != '\n') {
                continue;
            }
            Inflater inflater = new Inflater();
            try {
                inflater.setInput(data, start + 1, data.length - start - 1);
                while (!inflater.finished() && !inflater.needsInput() && !inflater.needsDictionary()) {
                    int n = inflater.inflate(sink);
                    inflated += n;
                    if (inflated > DocumentLimits.MAX_PDF_INFLATED_BYTES) {
                        throw DocumentException.tooLarge("'" + name + "' inflates to more than " + DocumentLimits.MAX_PDF_INFLATED_BYTES
                                / (1024 * 1024) + " MiB: refused as a zip bomb");
                    }
                    if (n == 0 && inflater.getRemaining() == 0) {
                        break;
                    }
                }
            } catch (DataFormatException notZlib) {
                // not a compressed stream (or another filter): PDFBox reads it
            } finally {
                inflater.end();
            }
        }
    }

    private static int indexOf(byte[] data, int from) {
        outer:
        for (int i = from; i <= data.length - STREAM.length; i++) {
            for (int j = 0; j < STREAM.length; j++) {
                if (data[i + j] != STREAM[j]) {
                    continue outer;
                }
            }
            if (i > 0 && data[i - 1] == 'd') {
                continue; // "endstream"
            }
            return i;
        }
        return -1;
    }

    private static String reason(Exception e) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return dev.skillforge.core.transcript.StorableText.abbreviate(message, 120);
    }

    /** Stops when the time is up. */
    private static final class Stripper extends PDFTextStripper {
        private final String name;
        private final long deadlineNanos;

        Stripper(String name, long deadlineNanos) {
            this.name = name;
            this.deadlineNanos = deadlineNanos;
            setSortByPosition(false);
            setLineSeparator("\n"); // not the platform's: the same text on every server
            setPageEnd("\n\n"); // pages apart by a blank line
        }

        @Override
        protected void startPage(PDPage page) throws IOException {
            if (System.nanoTime() - deadlineNanos > 0) {
                throw DocumentException.tooLarge("'" + name + "' took longer than " + DocumentLimits.MAX_EXTRACT_MILLIS / 1000
                        + " s to read");
            }
            super.startPage(page);
        }
    }

    /** Refuses text past {@link DocumentLimits#MAX_TEXT_CHARS} as it is written. */
    private static final class LimitedWriter extends Writer {
        private final StringBuilder out = new StringBuilder();
        private final String name;

        LimitedWriter(String name) {
            this.name = name;
        }

        @Override
        public void write(char[] buffer, int offset, int length) {
            if (out.length() + length > DocumentLimits.MAX_TEXT_CHARS) {
                throw DocumentException.tooLarge("'" + name + "' holds more than " + DocumentLimits.MAX_TEXT_CHARS + " characters of text");
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
