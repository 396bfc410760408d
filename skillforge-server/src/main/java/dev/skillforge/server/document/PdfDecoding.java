package dev.skillforge.server.document;

import org.apache.pdfbox.cos.COSDictionary;
import org.apache.pdfbox.cos.COSName;
import org.apache.pdfbox.filter.DecodeOptions;
import org.apache.pdfbox.filter.DecodeResult;
import org.apache.pdfbox.filter.Filter;
import org.apache.pdfbox.filter.FilterFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Field;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Counts what PDFBox decodes, while it decodes, for the PDF being read on the current thread ({@link PdfWork}).
 * PDFBox decodes a stream into memory whatever its filters (ASCIIHex, ASCII85, LZW, RunLength, Flate, in any chain,
 * after decryption) and has no setting that bounds it; every decoding goes through the filters of its
 * {@link FilterFactory}, so each of those is wrapped once, for the JVM, by one that counts. A filter used on a thread
 * that reads no PDF (writing one, in tests) counts nothing.
 */
final class PdfDecoding {

    private static final ThreadLocal<PdfWork> CURRENT = new ThreadLocal<>();

    static {
        install();
    }

    private PdfDecoding() {
    }

    /** Counts what is decoded on this thread for {@code work} until the returned handle is closed. */
    static Counting countFor(PdfWork work) {
        CURRENT.set(work);
        return CURRENT::remove;
    }

    /** Ends the counting of {@link #countFor}. */
    interface Counting extends AutoCloseable {
        @Override
        void close();
    }

    /** PDFBox keeps its filters in a private map: no other door reaches every decoding. Checked by the tests' bombs. */
    @SuppressWarnings("unchecked")
    private static void install() {
        try {
            Field field = FilterFactory.class.getDeclaredField("filters");
            field.setAccessible(true);
            Map<COSName, Filter> filters = (Map<COSName, Filter>) field.get(FilterFactory.INSTANCE);
            Map<Filter, Filter> counted = new IdentityHashMap<>(); // a name and its abbreviation share one filter, and still do
            filters.replaceAll((name, filter) -> filter instanceof Counted ? filter : counted.computeIfAbsent(filter, Counted::new));
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("PDFBox's filters cannot be wrapped (has its FilterFactory changed?): PDFs could not be"
                    + " read within their limits", e);
        }
    }

    /** A filter that decodes as {@code filter} does, writing through the current PDF's counter. */
    private static final class Counted extends Filter {
        private final Filter filter;

        Counted(Filter filter) {
            this.filter = filter;
        }

        @Override
        public DecodeResult decode(InputStream encoded, OutputStream decoded, COSDictionary parameters, int index) throws IOException {
            return decode(encoded, decoded, parameters, index, DecodeOptions.DEFAULT);
        }

        @Override
        public DecodeResult decode(InputStream encoded, OutputStream decoded, COSDictionary parameters, int index, DecodeOptions options)
                throws IOException {
            PdfWork work = CURRENT.get();
            return filter.decode(encoded, work == null ? decoded : work.decoding(decoded, parameters, index), parameters, index, options);
        }

        @Override
        protected void encode(InputStream input, OutputStream encoded, COSDictionary parameters) throws IOException {
            filter.encode(input, encoded, parameters, 0);
        }
    }
}
