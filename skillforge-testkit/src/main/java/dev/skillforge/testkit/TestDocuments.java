package dev.skillforge.testkit;

import org.apache.pdfbox.cos.COSArray;
import org.apache.pdfbox.cos.COSDictionary;
import org.apache.pdfbox.cos.COSName;
import org.apache.pdfbox.cos.COSStream;
import org.apache.pdfbox.filter.FilterFactory;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.common.PDStream;
import org.apache.pdfbox.pdmodel.encryption.AccessPermission;
import org.apache.pdfbox.pdmodel.encryption.StandardProtectionPolicy;
import org.apache.pdfbox.pdmodel.font.PDType1Font;
import org.apache.pdfbox.pdmodel.font.Standard14Fonts;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;

/** Documents for attachment tests: real PDFs made with PDFBox, and hostile ones made by hand. */
public final class TestDocuments {

    private static final int MIB = 1024 * 1024;

    private TestDocuments() {
    }

    /** A PDF with one page per argument, each page holding its lines (split at line breaks). */
    public static byte[] pdf(String... pages) {
        try (PDDocument document = new PDDocument(); ByteArrayOutputStream out = new ByteArrayOutputStream()) {
            for (String page : pages) {
                PDPage pdfPage = new PDPage();
                document.addPage(pdfPage);
                if (page.isEmpty()) {
                    continue; // a page without text, as a scan would be
                }
                try (PDPageContentStream content = new PDPageContentStream(document, pdfPage)) {
                    content.beginText();
                    content.setFont(new PDType1Font(Standard14Fonts.FontName.HELVETICA), 12);
                    content.setLeading(14);
                    content.newLineAtOffset(72, 720);
                    for (String line : page.split("\n")) {
                        content.showText(line);
                        content.newLine();
                    }
                    content.endText();
                }
            }
            document.save(out);
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A small PDF whose one content stream inflates to {@code inflatedMiB} MiB of zeros: a zip bomb dressed as a document. */
    public static byte[] zipBombPdf(int inflatedMiB) {
        return bombPdf(inflatedMiB, "\n", "FlateDecode");
    }

    /**
     * A PDF whose one content stream decodes to {@code decodedMiB} MiB of zeros through {@code filters} (in the order a
     * reader applies them, as in the stream's {@code /Filter} array), its {@code stream} keyword followed by
     * {@code lineEnd} ({@code "\n"}, {@code "\r\n"}, or a bare {@code "\r"}, which PDF readers accept too).
     * Flate must be among the filters, or the file is as large as what it decodes to.
     */
    public static byte[] bombPdf(int decodedMiB, String lineEnd, String... filters) {
        byte[] data = encodedZeros(decodedMiB, filters);
        StringBuilder names = new StringBuilder();
        for (String filter : filters) {
            names.append(" /").append(filter);
        }
        HandMadePdf pdf = new HandMadePdf();
        int content = pdf.stream("/Filter [" + names + " ]", data, lineEnd);
        return pdf.onePage(content, "<< >>");
    }

    /**
     * A PDF encrypted with an empty user password (it opens without one, as many "protected" PDFs do) whose content
     * stream inflates to {@code inflatedMiB} MiB: its stream bytes are encrypted, so they only look like a bomb once
     * decrypted. Its filter is an array, as many writers make it, so a reader decodes it whole before parsing it.
     */
    public static byte[] encryptedZipBombPdf(int inflatedMiB) {
        try (PDDocument document = new PDDocument(); ByteArrayOutputStream out = new ByteArrayOutputStream()) {
            PDPage page = new PDPage();
            document.addPage(page);
            COSStream stream = document.getDocument().createCOSStream();
            try (OutputStream raw = stream.createRawOutputStream()) {
                raw.write(encodedZeros(inflatedMiB, "FlateDecode"));
            }
            COSArray filters = new COSArray();
            filters.add(COSName.FLATE_DECODE);
            stream.setItem(COSName.FILTER, filters);
            page.setContents(new PDStream(stream));
            StandardProtectionPolicy policy = new StandardProtectionPolicy("owner", "", new AccessPermission());
            policy.setEncryptionKeyLength(128);
            document.protect(policy);
            document.save(out);
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A PDF of a few KB whose one page draws a form XObject that draws the next one {@code fanOut} times, {@code depth}
     * forms deep, the last one showing {@code text}: {@code fanOut^depth} drawings of it on one page.
     */
    public static byte[] nestedFormsPdf(int depth, int fanOut, String text) {
        HandMadePdf pdf = new HandMadePdf();
        int font = pdf.object("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
        int next = pdf.stream(form("<< /Font << /F1 " + font + " 0 R >> >>"),
                ("BT /F1 12 Tf 72 700 Td (" + text + ") Tj ET").getBytes(StandardCharsets.ISO_8859_1), "\n");
        for (int level = 1; level < depth; level++) {
            next = pdf.stream(form("<< /XObject << /X " + next + " 0 R >> >>"), "/X Do\n".repeat(fanOut).getBytes(StandardCharsets.US_ASCII), "\n");
        }
        int content = pdf.stream("", "/X Do".getBytes(StandardCharsets.US_ASCII), "\n");
        return pdf.onePage(content, "<< /XObject << /X " + next + " 0 R >> >>");
    }

    /** A PDF whose one form XObject draws itself twice: PDFBox follows it 50 levels deep, 2^50 drawings. */
    public static byte[] selfDrawingFormPdf() {
        HandMadePdf pdf = new HandMadePdf();
        int self = pdf.reserve();
        pdf.define(self, HandMadePdf.streamObject(form("<< /XObject << /X " + self + " 0 R >> >>"),
                "0 0 m 1 1 l S /X Do /X Do".getBytes(StandardCharsets.US_ASCII), "\n"));
        int content = pdf.stream("", "/X Do".getBytes(StandardCharsets.US_ASCII), "\n");
        return pdf.onePage(content, "<< /XObject << /X " + self + " 0 R >> >>");
    }

    /**
     * A PDF whose content stream, compressed, holds {@code count} numbers and never an operator: a reader keeps every
     * one of them as an object until an operator comes.
     */
    public static byte[] operandFloodPdf(int count) {
        InputStream numbers = new Repeated("1.5 ".getBytes(StandardCharsets.US_ASCII), count);
        HandMadePdf pdf = new HandMadePdf();
        int content = pdf.stream("/Filter /FlateDecode", encoded(numbers, "FlateDecode"), "\n");
        return pdf.onePage(content, "<< >>");
    }

    /**
     * A PDF whose page's resources are a dictionary of {@code names} distinct names, compressed in an object stream: a
     * reader keeps each name as an object (PDFBox, for the life of the JVM). It has no cross-reference table; readers
     * rebuild it, as they do for many damaged files.
     */
    public static byte[] manyNamesPdf(int names) {
        StringBuilder resources = new StringBuilder("<< /Font << /F1 7 0 R >>");
        for (int i = 0; i < names; i++) {
            resources.append(" /n").append(i).append(" 1");
        }
        String objects = "5 0 " + resources + " >>";
        byte[] compressed = encoded(new ByteArrayInputStream(objects.getBytes(StandardCharsets.US_ASCII)), "FlateDecode");
        ByteArrayOutputStream pdf = new ByteArrayOutputStream();
        pdf.writeBytes(("%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
                + "2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n"
                + "3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources 5 0 R /Contents 6 0 R >>\nendobj\n"
                + "7 0 obj\n<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>\nendobj\n"
                + "6 0 obj\n<< /Length 36 >>\nstream\nBT /F1 12 Tf 72 700 Td (Hello) Tj ET\nendstream\nendobj\n"
                + "4 0 obj\n<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length " + compressed.length + " >>\nstream\n")
                .getBytes(StandardCharsets.US_ASCII));
        pdf.writeBytes(compressed);
        pdf.writeBytes("\nendstream\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n".getBytes(StandardCharsets.US_ASCII));
        return pdf.toByteArray();
    }

    /** An HTML page of {@code times} nested {@code <tag>} elements, none closed, each holding a word and a line break. */
    public static byte[] nestedHtml(String tag, int times) {
        return ("<html><body>" + ("<" + tag + ">word<br>\n").repeat(times) + "</body></html>").getBytes(StandardCharsets.UTF_8);
    }

    private static String form(String resources) {
        return "/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources " + resources;
    }

    /** {@code mib} MiB of zeros encoded with {@code filters}; the deflated zeros are made once per size (the slow part). */
    private static byte[] encodedZeros(int mib, String... filters) {
        int last = filters.length - 1;
        if (!filters[last].equals("FlateDecode")) {
            return encoded(zeros(mib), filters);
        }
        byte[] deflated = DEFLATED_ZEROS.computeIfAbsent(mib, size -> encoded(zeros(size), "FlateDecode"));
        return last == 0 ? deflated : encoded(new ByteArrayInputStream(deflated), Arrays.copyOf(filters, last));
    }

    private static final Map<Integer, byte[]> DEFLATED_ZEROS = new ConcurrentHashMap<>();

    private static InputStream zeros(int mib) {
        return new Repeated(new byte[1], (long) mib * MIB);
    }

    /** {@code raw} encoded so that decoding it with {@code filters}, in order, gives it back. */
    private static byte[] encoded(InputStream raw, String... filters) {
        try {
            InputStream data = raw;
            byte[] out = null;
            for (int i = filters.length - 1; i >= 0; i--) {
                ByteArrayOutputStream encoded = new ByteArrayOutputStream();
                if (filters[i].equals("FlateDecode")) {
                    try (DeflaterOutputStream deflate = new DeflaterOutputStream(encoded, new Deflater(Deflater.BEST_COMPRESSION))) {
                        data.transferTo(deflate);
                    }
                } else {
                    FilterFactory.INSTANCE.getFilter(filters[i]).encode(data, encoded, new COSDictionary(), 0);
                }
                out = encoded.toByteArray();
                data = new ByteArrayInputStream(out);
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code times} copies of {@code unit}, made as they are read. */
    private static final class Repeated extends InputStream {
        private final byte[] unit;
        private final long length;
        private long at;

        Repeated(byte[] unit, long times) {
            this.unit = unit;
            this.length = unit.length * times;
        }

        @Override
        public int read() {
            return at < length ? unit[(int) (at++ % unit.length)] : -1;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) {
            if (at >= this.length) {
                return -1;
            }
            int n = (int) Math.min(length, this.length - at);
            if (unit.length == 1) {
                Arrays.fill(buffer, offset, offset + n, unit[0]);
                at += n;
                return n;
            }
            for (int i = 0; i < n; i++) {
                buffer[offset + i] = unit[(int) (at++ % unit.length)];
            }
            return n;
        }
    }

    /** A PDF written object by object, with a correct cross-reference table: one catalog, one page. */
    private static final class HandMadePdf {
        private final List<byte[]> objects = new ArrayList<>();

        int reserve() {
            objects.add(null);
            return objects.size();
        }

        void define(int number, byte[] body) {
            objects.set(number - 1, body);
        }

        int object(String body) {
            int number = reserve();
            define(number, body.getBytes(StandardCharsets.ISO_8859_1));
            return number;
        }

        int stream(String dictionaryEntries, byte[] data, String lineEnd) {
            int number = reserve();
            define(number, streamObject(dictionaryEntries, data, lineEnd));
            return number;
        }

        static byte[] streamObject(String dictionaryEntries, byte[] data, String lineEnd) {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            body.writeBytes(("<< /Length " + data.length + " " + dictionaryEntries + " >>\nstream" + lineEnd).getBytes(StandardCharsets.ISO_8859_1));
            body.writeBytes(data);
            body.writeBytes("\nendstream".getBytes(StandardCharsets.ISO_8859_1));
            return body.toByteArray();
        }

        /** The file, with a page that shows {@code content} with {@code resources}. */
        byte[] onePage(int content, String resources) {
            int pages = reserve();
            int page = object("<< /Type /Page /Parent " + pages + " 0 R /MediaBox [0 0 612 792] /Contents " + content
                    + " 0 R /Resources " + resources + " >>");
            define(pages, ("<< /Type /Pages /Kids [" + page + " 0 R] /Count 1 >>").getBytes(StandardCharsets.ISO_8859_1));
            int catalog = object("<< /Type /Catalog /Pages " + pages + " 0 R >>");
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.writeBytes("%PDF-1.7\n%\u00e2\u00e3\u00cf\u00d3\n".getBytes(StandardCharsets.ISO_8859_1));
            long[] offsets = new long[objects.size()];
            for (int i = 0; i < objects.size(); i++) {
                offsets[i] = out.size();
                out.writeBytes(((i + 1) + " 0 obj\n").getBytes(StandardCharsets.ISO_8859_1));
                out.writeBytes(objects.get(i));
                out.writeBytes("\nendobj\n".getBytes(StandardCharsets.ISO_8859_1));
            }
            long xref = out.size();
            StringBuilder table = new StringBuilder("xref\n0 " + (objects.size() + 1) + "\n0000000000 65535 f \n");
            for (long offset : offsets) {
                table.append(String.format("%010d 00000 n \n", offset));
            }
            table.append("trailer\n<< /Size ").append(objects.size() + 1).append(" /Root ").append(catalog)
                    .append(" 0 R >>\nstartxref\n").append(xref).append("\n%%EOF\n");
            out.writeBytes(table.toString().getBytes(StandardCharsets.ISO_8859_1));
            return out.toByteArray();
        }
    }
}
