package dev.skillforge.server.document;

import dev.skillforge.testkit.TestDocuments;
import org.junit.jupiter.api.Test;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Reading uploads: the text the model gets from each kind of file, and the refusals. */
class DocumentsTest {

    private static String text(String name, String type, byte[] data) {
        String wrapped = Documents.read(new Upload(name, type, data)).attachment().promptText();
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
        AttachedDocument code = Documents.read(new Upload("Main.java", "application/octet-stream", "class Main {}\r\n".getBytes(StandardCharsets.UTF_8)));
        assertThat(code.attachment().mediaType()).isEqualTo("text/plain");
        assertThat(code.attachment().promptText()).isEqualTo("<document name=\"Main.java\" type=\"text/plain\">\nclass Main {}\r\n</document>\n\n");
        assertThat(Documents.read(new Upload("a\"b<c>.md", "text/markdown; charset=utf-8", "x".getBytes(StandardCharsets.UTF_8)))
                .attachment().promptText()).startsWith("<document name=\"a&quot;b&lt;c&gt;.md\" type=\"text/markdown\">\n");
        assertThat(Documents.read(new Upload("same.txt", "text/plain", "x".getBytes(StandardCharsets.UTF_8))).attachment().sha256())
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
    void theLimitsPerMessageCountEveryFile() {
        byte[] four = new byte[4 * 1024 * 1024];
        java.util.Arrays.fill(four, (byte) 'a');
        List<Upload> three = List.of(new Upload("1.txt", "", four), new Upload("2.txt", "", four), new Upload("3.txt", "", four));
        assertThatThrownBy(() -> Documents.read(three)).isInstanceOf(DocumentException.class).hasMessageContaining("10 MiB");
        List<Upload> eleven = java.util.stream.IntStream.range(0, 11).mapToObj(i -> new Upload(i + ".txt", "", "x".getBytes(StandardCharsets.UTF_8))).toList();
        assertThatThrownBy(() -> Documents.read(eleven)).isInstanceOf(DocumentException.class).hasMessageContaining("limit is 10");
        byte[] big = "z".repeat(300_000).getBytes(StandardCharsets.UTF_8);
        List<Upload> tooMuchText = List.of(new Upload("a.txt", "", big), new Upload("b.txt", "", big), new Upload("c.txt", "", big));
        assertThatThrownBy(() -> Documents.read(tooMuchText)).isInstanceOf(DocumentException.class).hasMessageContaining("together");
    }

    private static void assertRefused(Upload upload, DocumentException.Kind kind, String reason) {
        assertThatThrownBy(() -> Documents.read(upload)).as(upload.name()).isInstanceOfSatisfying(DocumentException.class, e -> {
            assertThat(e.kind()).as(upload.name()).isEqualTo(kind);
            assertThat(e.getMessage()).as(upload.name()).contains(reason);
        });
    }
}
