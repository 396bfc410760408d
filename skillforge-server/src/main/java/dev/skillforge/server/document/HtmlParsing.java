package dev.skillforge.server.document;

import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.jsoup.parser.Parser;
import org.jsoup.parser.StreamParser;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.util.Iterator;

/**
 * HTML parsed by jsoup within limits: jsoup hands over each element as it completes it, so the elements are counted
 * while they are made ({@link DocumentLimits#MAX_HTML_ELEMENTS}: a few MB of tags could otherwise become millions of
 * them, half a gigabyte of heap) and the deadline is looked at between them.
 */
final class HtmlParsing {

    /** What jsoup reads of a file to find its charset (a byte-order mark, a {@code <meta>} near the top). */
    private static final int CHARSET_PREFIX_BYTES = 5 * 1024;
    /** How often (in elements) the deadline is looked at. */
    private static final int CHECK_EVERY_ELEMENTS = 256;

    private HtmlParsing() {
    }

    /**
     * A file's bytes, in the charset jsoup finds for them as it would for the whole file: a byte-order mark, a
     * {@code <meta charset>} in the first 5 KB, else UTF-8.
     */
    static Document parse(byte[] data, String what, Deadline deadline) {
        try {
            Charset charset = Jsoup.parse(new ByteArrayInputStream(data, 0, Math.min(data.length, CHARSET_PREFIX_BYTES)), null, "")
                    .charset();
            String html = new String(data, charset);
            return parse(html.startsWith("\uFEFF") ? html.substring(1) : html, "", what, deadline);
        } catch (IOException e) {
            throw DocumentException.invalid(what + " is not readable HTML");
        }
    }

    /**
     * @param what the file or page, as messages name it
     * @throws DocumentException TOO_LARGE past the elements' limit; the deadline's
     */
    static Document parse(String html, String baseUri, String what, Deadline deadline) {
        try (StreamParser parser = new StreamParser(Parser.htmlParser()).parse(new StringReader(html), baseUri)) {
            int elements = 0;
            for (Iterator<Element> completed = parser.iterator(); completed.hasNext(); completed.next()) {
                if (++elements > DocumentLimits.MAX_HTML_ELEMENTS) {
                    throw DocumentException.tooLarge(what + " has more than " + DocumentLimits.MAX_HTML_ELEMENTS + " HTML elements");
                }
                if (elements % CHECK_EVERY_ELEMENTS == 0) {
                    deadline.check(what);
                }
            }
            return parser.document();
        } catch (UncheckedIOException e) {
            throw DocumentException.invalid(what + " is not readable HTML");
        }
    }
}
