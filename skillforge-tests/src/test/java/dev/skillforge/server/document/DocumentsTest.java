package dev.skillforge.server.document;

import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.testkit.TestDocuments;
import dev.skillforge.testkit.TickingClock;
import org.junit.jupiter.api.Test;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/** Reading uploads: the text the model gets from each kind of file, and the refusals. */
class DocumentsTest {

    private static AttachedDocument read(Upload upload) {
        return Documents.read(List.of(upload), new Cancellation()).getFirst();
    }

    private static String text(String name, String type, byte[] data) {
        String wrapped = read(new Upload(name, type, data)).attachment().promptText();
        return wrapped.substring(wrapped.indexOf('\n') + 1, wrapped.lastIndexOf("</document>") - 1);
    }

    @Test
    void textIsDecodedWithItsEncodingDetected() {
        String french = "Le café crème est prêt. Ça sent très bon, n'est-ce pas ? Déjà fini, hélas. Où est la crème fraîche ?";
        assertThat(text("utf8.txt", "text/plain", french.getBytes(StandardCharsets.UTF_8))).isEqualTo(french);
        assertThat(text("latin.txt", "text/plain", french.getBytes(Charset.forName("windows-1252")))).isEqualTo(french);
        byte[] utf16 = ("\uFEFF" + french).getBytes(StandardCharsets.UTF_16LE);
        assertThat(text("wide.txt", "text/plain", utf16)).isEqualTo(french);
        String japanese = "日本語のテキストです。これは文字コードの検出のテストです。東京は日本の首都です。寿司と天ぷらが好きです。";
        assertThat(text("sjis.txt", "text/plain", japanese.getBytes(Charset.forName("Shift_JIS")))).isEqualTo(japanese);
        assertThat(text("bom.md", "", ("\uFEFF# Title\n").getBytes(StandardCharsets.UTF_8))).isEqualTo("# Title");
    }

    @Test
    void sourceCodeAndMarkdownAreReadAsTheyAreAndTheirTypeComesFromTheExtensionWhenNoneIsGiven() {
        AttachedDocument code = read(new Upload("Main.java", "application/octet-stream", "class Main {}\r\n".getBytes(StandardCharsets.UTF_8)));
        assertThat(code.attachment().mediaType()).isEqualTo("text/plain");
        assertThat(code.attachment().promptText()).isEqualTo("<document name=\"Main.java\" type=\"text/plain\">\nclass Main {}\r\n</document>\n\n");
        assertThat(read(new Upload("a\"b<c>.md", "text/markdown; charset=utf-8", "x".getBytes(StandardCharsets.UTF_8)))
                .attachment().promptText()).startsWith("<document name=\"a&quot;b&lt;c&gt;.md\" type=\"text/markdown\">\n");
        assertThat(read(new Upload("same.txt", "text/plain", "x".getBytes(StandardCharsets.UTF_8))).attachment().sha256())
                .isEqualTo("2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881");
    }

    @Test
    void htmlBecomesReadableMarkdownWithoutScriptsOrChrome() {
        String page = "<html><head><meta charset=\"windows-1252\"><style>p{}</style></head><body>"
                + "<header>Site</header><nav><a href=\"/\">Home</a></nav><main><h2>Brew</h2>"
                + "<p>See <a href=\"https://example.com/guide\">the guide</a> &amp; enjoy.</p>"
                + "<ul><li>one</li><li>two</li></ul><pre>code  here\n  indented</pre><script>alert(1)</script></main>"
                + "<footer>(c)</footer></body></html>";
        assertThat(text("p.html", "text/html", page.getBytes(StandardCharsets.UTF_8))).isEqualTo(
                "## Brew\n\nSee [the guide](https://example.com/guide) & enjoy.\n\n- one\n- two\n\n```\ncode  here\n  indented\n```");
    }

    @Test
    void pdfPagesAreReadInOrder() {
        assertThat(text("a.pdf", "application/pdf", TestDocuments.pdf("First page", "Second page")))
                .isEqualTo("First page\n\nSecond page");
    }

    @Test
    void hostileAndWrongFilesAreRefusedWithAClearReason() {
        byte[] hello = "hello".getBytes(StandardCharsets.UTF_8);
        assertRefused(new Upload("..", "text/plain", hello), DocumentException.Kind.INVALID, "is a path");
        assertRefused(new Upload("a\\b.txt", "text/plain", hello), DocumentException.Kind.INVALID, "is a path");
        assertRefused(new Upload("a\nb.txt", "text/plain", hello), DocumentException.Kind.INVALID, "control");
        assertRefused(new Upload(" a.txt", "text/plain", hello), DocumentException.Kind.INVALID, "white space");
        assertRefused(new Upload("x".repeat(201), "text/plain", hello), DocumentException.Kind.INVALID, "limit is 200");
        assertRefused(new Upload("bin.txt", "text/plain", new byte[]{1, 0, 2, 0}), DocumentException.Kind.UNSUPPORTED, "binary");
        assertRefused(new Upload("v.mp4", "video/mp4", hello), DocumentException.Kind.UNSUPPORTED, "video/mp4");
        assertRefused(new Upload("blank.txt", "text/plain", "  \n ".getBytes(StandardCharsets.UTF_8)), DocumentException.Kind.INVALID, "no text");
        String huge = "<html><body>" + "<p>word word word word</p>".repeat(30_000) + "</body></html>";
        assertRefused(new Upload("huge.html", "text/html", huge.getBytes(StandardCharsets.UTF_8)), DocumentException.Kind.TOO_LARGE,
                "longer than 400000 characters");
        assertRefused(new Upload("long.txt", "text/plain", "y".repeat(DocumentLimits.MAX_TEXT_CHARS + 1).getBytes(StandardCharsets.UTF_8)),
                DocumentException.Kind.TOO_LARGE, "per file");
        assertRefused(new Upload("bomb.pdf", "application/pdf", TestDocuments.zipBombPdf(100)), DocumentException.Kind.TOO_LARGE, "zip bomb");
        assertRefused(new Upload("pdf-as.txt", "text/plain", TestDocuments.pdf("")), DocumentException.Kind.INVALID, "no text");
    }

    @Test
    void pdfsThatDecodeToABombAreRefusedWhateverTheirFiltersLineEndingsOrEncryption() {
        Map<String, byte[]> bombs = new LinkedHashMap<>();
        bombs.put("ascii-hex then flate", TestDocuments.bombPdf(100, "\n", "ASCIIHexDecode", "FlateDecode"));
        bombs.put("ascii-85 then flate", TestDocuments.bombPdf(100, "\n", "ASCII85Decode", "FlateDecode"));
        bombs.put("lzw then flate", TestDocuments.bombPdf(100, "\n", "LZWDecode", "FlateDecode"));
        bombs.put("run-length then flate", TestDocuments.bombPdf(100, "\n", "RunLengthDecode", "FlateDecode"));
        bombs.put("flate after a bare CR", TestDocuments.bombPdf(100, "\r", "FlateDecode"));
        bombs.put("flate, encrypted", TestDocuments.encryptedZipBombPdf(100));
        for (var bomb : bombs.entrySet()) {
            assertRefused(new Upload(bomb.getKey() + ".pdf", "application/pdf", bomb.getValue()), DocumentException.Kind.TOO_LARGE,
                    "decodes to more than 64 MiB: refused as a zip bomb");
        }
    }

    @Test
    void pdfsThatMakePdfboxWorkWithoutEndAreRefusedByTheWorkTheyCost() {
        // The hostile tester's class: a few KB of forms drawing forms pinned a core for minutes.
        assertRefused(new Upload("nested.pdf", "application/pdf", TestDocuments.nestedFormsPdf(10, 10, "x")),
                DocumentException.Kind.TOO_LARGE, "draws forms more than 50000 times");
        assertRefused(new Upload("itself.pdf", "application/pdf", TestDocuments.selfDrawingFormPdf()),
                DocumentException.Kind.TOO_LARGE, "draws forms more than 50000 times");
        assertRefused(new Upload("glyphs.pdf", "application/pdf", TestDocuments.nestedFormsPdf(3, 10, "x".repeat(5_000))),
                DocumentException.Kind.TOO_LARGE, "draws more than 100000 characters on page 1");
        assertRefused(new Upload("operands.pdf", "application/pdf", TestDocuments.operandFloodPdf(2_000_000)),
                DocumentException.Kind.TOO_LARGE, "more than 1 MiB of operands without an operator");
        assertRefused(new Upload("names.pdf", "application/pdf", TestDocuments.manyNamesPdf(500_000)),
                DocumentException.Kind.TOO_LARGE, "The object streams of 'names.pdf' decode to more than 4 MiB");
        assertThat(text("few-names.pdf", "application/pdf", TestDocuments.manyNamesPdf(1_000))).isEqualTo("Hello");
    }

    @Test
    void aPdfLimitOncePassedStaysPassedThoughPdfboxCatchesTheRefusal() {
        PdfWork work = new PdfWork("'busy.pdf'", new Deadline(InstantSource.system(), Duration.ofMinutes(1)));
        for (long i = 0; i < DocumentLimits.MAX_PDF_OPERATORS; i++) {
            work.operator();
        }

        assertThatThrownBy(work::operator).hasMessage("'busy.pdf' takes more than 5000000 drawing operations to read: it is refused as too complex");
        assertThatThrownBy(work::check).as("every later check").hasMessageContaining("5000000 drawing operations");
        assertThatThrownBy(work::page).hasMessageContaining("5000000 drawing operations");
        assertThat(work.refusal()).isNotNull();
    }

    @Test
    void theDeadlineIsCheckedWhileAPdfIsReadNotOnlyBetweenPages() {
        // One page: a check between pages would never come. The clock moves a millisecond each time it is read.
        Deadline deadline = new Deadline(new TickingClock(Duration.ofMillis(1)), Duration.ofMillis(200));

        assertThatThrownBy(() -> PdfText.extract("slow.pdf", TestDocuments.nestedFormsPdf(10, 10, "x"), deadline))
                .isInstanceOfSatisfying(DocumentException.class, e -> {
                    assertThat(e.kind()).isEqualTo(DocumentException.Kind.TOO_LARGE);
                    assertThat(e.getMessage()).isEqualTo("'slow.pdf' took longer than 200 ms to read");
                });
    }

    @Test
    void deeplyNestedHtmlIsReadInLinearTimeWithItsQuotesShownAtMostEightDeep() {
        String text = text("quotes.html", "text/html", TestDocuments.nestedHtml("blockquote", 5_000));

        assertThat(text.lines().filter(line -> line.endsWith("word"))).as("every word kept").hasSize(5_000);
        assertThat(text.lines()).allSatisfy(line -> assertThat(line).matches("(> ){1,8}word|>( >){0,7}"));
        assertThat(text).startsWith("> word\n>\n> > word\n> >\n> > > word")
                .contains("> > > > > > > > word\n> > > > > > > >\n> > > > > > > > word");

        // The hostile tester's 260 KB of nested quotes took 22 to 50 s and became up to 120 million characters.
        byte[] hostile = TestDocuments.nestedHtml("blockquote", 12_500);
        assertThat(hostile.length).isGreaterThan(260_000);
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertRefused(new Upload("hostile.html", "text/html", hostile),
                DocumentException.Kind.TOO_LARGE, "its text is longer than 400000 characters"));

        String bold = assertTimeoutPreemptively(Duration.ofSeconds(10),
                () -> text("bold.html", "text/html", TestDocuments.nestedHtml("b", 12_500)));
        assertThat(bold).startsWith("**word\n**word");
        assertThat(bold.lines().filter(line -> line.startsWith("**word"))).as("every word kept").hasSize(12_500);
    }

    @Test
    void htmlOfMoreElementsThanAPageHasIsRefusedWhileItIsParsed() {
        // jsoup turns each <p><b>x of this file into several elements: a 5 MiB one took half a gigabyte of heap.
        byte[] flood = ("<html><body>" + "<p><b>x".repeat(200_000) + "</body></html>").getBytes(StandardCharsets.UTF_8);

        assertRefused(new Upload("flood.html", "text/html", flood), DocumentException.Kind.TOO_LARGE, "more than 200000 HTML elements");
    }

    @Test
    void theDeadlineIsCheckedWhileHtmlIsConverted() {
        Deadline deadline = new Deadline(new TickingClock(Duration.ofMillis(1)), Duration.ofMillis(50));
        org.jsoup.nodes.Document page = org.jsoup.Jsoup.parse("<p>x</p>".repeat(50_000));

        assertThatThrownBy(() -> HtmlMarkdown.of(page, "'many.html'", DocumentLimits.MAX_TEXT_CHARS, deadline))
                .hasMessage("'many.html' took longer than 50 ms to read");
    }

    @Test
    void theLimitsPerMessageCountEveryFile() {
        byte[] four = new byte[4 * 1024 * 1024];
        java.util.Arrays.fill(four, (byte) 'a');
        List<Upload> three = List.of(new Upload("1.txt", "", four), new Upload("2.txt", "", four), new Upload("3.txt", "", four));
        assertThatThrownBy(() -> Documents.read(three, new Cancellation())).isInstanceOf(DocumentException.class).hasMessageContaining("10 MiB");
        List<Upload> eleven = java.util.stream.IntStream.range(0, 11).mapToObj(i -> new Upload(i + ".txt", "", "x".getBytes(StandardCharsets.UTF_8))).toList();
        assertThatThrownBy(() -> Documents.read(eleven, new Cancellation())).isInstanceOf(DocumentException.class).hasMessageContaining("limit is 10");
        byte[] big = "z".repeat(300_000).getBytes(StandardCharsets.UTF_8);
        List<Upload> tooMuchText = List.of(new Upload("a.txt", "", big), new Upload("b.txt", "", big), new Upload("c.txt", "", big));
        assertThatThrownBy(() -> Documents.read(tooMuchText, new Cancellation())).isInstanceOf(DocumentException.class).hasMessageContaining("together");
    }

    private static void assertRefused(Upload upload, DocumentException.Kind kind, String reason) {
        assertThatThrownBy(() -> read(upload)).as(upload.name()).isInstanceOfSatisfying(DocumentException.class, e -> {
            assertThat(e.kind()).as(upload.name()).isEqualTo(kind);
            assertThat(e.getMessage()).as(upload.name()).contains(reason);
        });
    }
}
