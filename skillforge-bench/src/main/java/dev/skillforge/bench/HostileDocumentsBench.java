package dev.skillforge.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.transcript.StorableText;
import dev.skillforge.server.document.DocumentException;
import dev.skillforge.server.document.Documents;
import dev.skillforge.server.document.Upload;
import dev.skillforge.server.json.Json;
import dev.skillforge.testkit.TestDocuments;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.IntStream;

/**
 * How long the hostile documents of the tests take to be refused (and a large honest one to be read): each is read
 * through {@link Documents} as an upload is, several times in one JVM, so the first run shows a cold start and the
 * median a warm one. Run it with a small heap ({@code JAVA_TOOL_OPTIONS=-Xmx160m}) to see that none of them needs more.
 */
final class HostileDocumentsBench {

    private record Case(String name, String type, byte[] data) {
    }

    private HostileDocumentsBench() {
    }

    static void run(Path out, int runs) throws Exception {
        List<Case> cases = List.of(
                new Case("nested-forms.pdf", "application/pdf", TestDocuments.nestedFormsPdf(10, 10, "x")),
                new Case("self-drawing-form.pdf", "application/pdf", TestDocuments.selfDrawingFormPdf()),
                new Case("glyph-flood.pdf", "application/pdf", TestDocuments.nestedFormsPdf(4, 10, "x".repeat(5_000))),
                new Case("operand-flood.pdf", "application/pdf", TestDocuments.operandFloodPdf(15_000_000)),
                new Case("hex-flate-bomb.pdf", "application/pdf", TestDocuments.bombPdf(700, "\n", "ASCIIHexDecode", "FlateDecode")),
                new Case("bare-cr-bomb.pdf", "application/pdf", TestDocuments.bombPdf(700, "\r", "FlateDecode")),
                new Case("encrypted-bomb.pdf", "application/pdf", TestDocuments.encryptedZipBombPdf(700)),
                new Case("many-names.pdf", "application/pdf", TestDocuments.manyNamesPdf(1_000_000)),
                new Case("nested-quotes.html", "text/html", TestDocuments.nestedHtml("blockquote", 12_500)),
                new Case("element-flood.html", "text/html", ("<html><body>" + "<p><b>x".repeat(700_000)).getBytes(StandardCharsets.UTF_8)),
                new Case("300-pages.pdf", "application/pdf", TestDocuments.pdf(IntStream.range(0, 300)
                        .mapToObj(page -> ("Line " + page + " of an honest report, long enough to be a line.\n").repeat(20))
                        .toArray(String[]::new))));
        System.out.println();
        System.out.printf(Locale.ROOT, "Reading hostile documents (%d runs each; %d cores, load %.1f, max heap %d MB)%n", runs,
                Runtime.getRuntime().availableProcessors(), ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                Runtime.getRuntime().maxMemory() >> 20);
        System.out.println("| document | bytes | first ms | median ms | result |");
        System.out.println("|---|---:|---:|---:|---|");
        ArrayNode rows = Json.MAPPER.createArrayNode();
        for (Case c : cases) {
            double[] times = new double[runs];
            String result = "";
            for (int i = 0; i < runs; i++) {
                long start = System.nanoTime();
                result = read(c);
                times[i] = (System.nanoTime() - start) / 1e6;
            }
            double median = HotTurnLatencyBench.percentile(Arrays.copyOfRange(times, 1, Math.max(2, runs)), 50);
            System.out.printf(Locale.ROOT, "| %s | %d | %.0f | %.0f | %s |%n", c.name(), c.data().length, times[0], median, result);
            rows.addObject().put("document", c.name()).put("bytes", c.data().length).put("firstMs", times[0]).put("medianMs", median)
                    .put("result", result);
        }
        ObjectNode json = Json.object().put("benchmark", "documents").put("runs", runs).put("maxHeapMb", Runtime.getRuntime().maxMemory() >> 20);
        json.set("documents", rows);
        Files.createDirectories(out);
        Path file = out.resolve("hostile-documents.json");
        Files.writeString(file, Json.write(json) + "\n");
        System.out.println("written: " + file.toAbsolutePath());
    }

    private static String read(Case c) {
        try {
            int chars = Documents.read(List.of(new Upload(c.name(), c.type(), c.data())), new Cancellation()).getFirst()
                    .attachment().promptText().length();
            return "read: " + chars + " characters";
        } catch (DocumentException e) {
            return e.code() + ": " + StorableText.abbreviate(e.getMessage(), 90);
        }
    }
}
