package dev.skillforge.testkit;

import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.font.PDType1Font;
import org.apache.pdfbox.pdmodel.font.Standard14Fonts;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;

/** Documents for attachment tests: real PDFs made with PDFBox, and hostile ones made by hand. */
public final class TestDocuments {

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
        ByteArrayOutputStream compressed = new ByteArrayOutputStream();
        try (DeflaterOutputStream deflate = new DeflaterOutputStream(compressed, new Deflater(Deflater.BEST_COMPRESSION))) {
            byte[] zeros = new byte[1024 * 1024];
            for (int i = 0; i < inflatedMiB; i++) {
                deflate.write(zeros);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ByteArrayOutputStream pdf = new ByteArrayOutputStream();
        pdf.writeBytes(("%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
                + "2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n"
                + "3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>\nendobj\n"
                + "4 0 obj\n<< /Length " + compressed.size() + " /Filter /FlateDecode >>\nstream\n").getBytes(StandardCharsets.US_ASCII));
        pdf.writeBytes(compressed.toByteArray());
        pdf.writeBytes("\nendstream\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n".getBytes(StandardCharsets.US_ASCII));
        return pdf.toByteArray();
    }
}
