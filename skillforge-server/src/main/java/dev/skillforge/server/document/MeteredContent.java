package dev.skillforge.server.document;

import org.apache.pdfbox.io.RandomAccessRead;
import org.apache.pdfbox.io.RandomAccessReadView;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDResources;
import org.apache.pdfbox.pdmodel.graphics.form.PDFormXObject;
import org.apache.pdfbox.pdmodel.graphics.form.PDTransparencyGroup;

import java.io.IOException;

/**
 * Pages and forms whose content streams count every byte PDFBox parses of them ({@link PdfWork#contentBytes}): PDFBox
 * keeps a stream's operands as objects until an operator comes, so a stream of operands alone would fill the heap.
 * Each is the same PDF object as the one it stands for, with that one's resources.
 */
final class MeteredContent {

    private MeteredContent() {
    }

    static PDPage page(PDPage page, PdfWork work) {
        return new PDPage(page.getCOSObject()) {
            @Override
            public PDResources getResources() {
                return page.getResources();
            }

            @Override
            public RandomAccessRead getContentsForStreamParsing() throws IOException {
                return new Metered(page.getContentsForStreamParsing(), work);
            }
        };
    }

    static PDFormXObject form(PDFormXObject form, PdfWork work) {
        return new PDFormXObject(form.getCOSObject(), null) {
            @Override
            public PDResources getResources() {
                return form.getResources();
            }

            @Override
            public RandomAccessRead getContentsForStreamParsing() throws IOException {
                return new Metered(form.getContentsForStreamParsing(), work);
            }
        };
    }

    static PDTransparencyGroup group(PDTransparencyGroup group, PdfWork work) {
        return new PDTransparencyGroup(group.getCOSObject(), null) {
            @Override
            public PDResources getResources() {
                return group.getResources();
            }

            @Override
            public RandomAccessRead getContentsForStreamParsing() throws IOException {
                return new Metered(group.getContentsForStreamParsing(), work);
            }
        };
    }

    /** A content stream that counts what is read of it. */
    private static final class Metered implements RandomAccessRead {
        private final RandomAccessRead source;
        private final PdfWork work;

        Metered(RandomAccessRead source, PdfWork work) {
            this.source = source;
            this.work = work;
        }

        @Override
        public int read() throws IOException {
            int b = source.read();
            if (b >= 0) {
                work.contentBytes(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = source.read(buffer, offset, length);
            if (n > 0) {
                work.contentBytes(n);
            }
            return n;
        }

        @Override
        public void skip(int length) throws IOException {
            source.skip(length);
            work.contentBytes(length);
        }

        @Override
        public int peek() throws IOException {
            return source.peek();
        }

        @Override
        public void rewind(int bytes) throws IOException {
            source.rewind(bytes);
        }

        @Override
        public int available() throws IOException {
            return source.available();
        }

        @Override
        public long getPosition() throws IOException {
            return source.getPosition();
        }

        @Override
        public void seek(long position) throws IOException {
            source.seek(position);
        }

        @Override
        public long length() throws IOException {
            return source.length();
        }

        @Override
        public boolean isClosed() {
            return source.isClosed();
        }

        @Override
        public boolean isEOF() throws IOException {
            return source.isEOF();
        }

        @Override
        public RandomAccessReadView createView(long startPosition, long streamLength) throws IOException {
            return source.createView(startPosition, streamLength);
        }

        @Override
        public void close() throws IOException {
            source.close();
        }
    }
}
