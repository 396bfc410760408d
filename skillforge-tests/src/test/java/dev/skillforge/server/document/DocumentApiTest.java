package dev.skillforge.server.document;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.server.provider.sim.SimRequest;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.testkit.SimScript;
import dev.skillforge.testkit.SseClient;
import dev.skillforge.testkit.TestDocuments;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Attachments through the HTTP API, on a real server with the SQLite store and the simulated provider: what
 * the model reads, what the conversation lists, the download, and the cache invariant across turns and a restart.
 */
class DocumentApiTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final String NOTES = "# Cold brew\n\n1. Grind coarse.\n2. Steep 12 hours.\n";

    @Test
    void aPdfAndAMarkdownFileReachTheModelWrappedAndTheRequestsOnlyGrowAcrossTurnsAndARestart(@TempDir Path data) throws Exception {
        byte[] pdf = TestDocuments.pdf("Pour-over guide\nRinse the filter.", "Bloom for 30 seconds.");
        String id;
        List<SimRequest> before;
        try (ServerHarness server = new ServerHarness(data, new SimScript(SimReply.of("I read both."), SimReply.of("Done.")))) {
            id = create(server);
            ObjectNode body = Json.object().put("content", "Turn these into a skill");
            ArrayNode attachments = body.putArray("attachments");
            attachments.addObject().put("name", "notes.md").put("mediaType", "text/markdown").put("data", base64(NOTES.getBytes(StandardCharsets.UTF_8)));
            attachments.addObject().put("name", "guide.pdf").put("mediaType", "application/pdf").put("data", base64(pdf));

            List<SseClient.Event> events = SseClient.postForEvents(server.url("/api/conversations/" + id + "/messages"), Json.write(body));
            assertThat(events.getLast().text("stopReason")).isEqualTo("complete");

            String seen = server.sim.requests().getFirst().messages().get(1).path("content").asText();
            assertThat(seen).isEqualTo("<document name=\"notes.md\" type=\"text/markdown\">\n" + NOTES + "</document>\n\n"
                    + "<document name=\"guide.pdf\" type=\"application/pdf\">\nPour-over guide\nRinse the filter.\n\nBloom for 30 seconds.\n"
                    + "</document>\n\nTurn these into a skill");

            JsonNode conversation = SseClient.get(server.url("/api/conversations/" + id)).json();
            JsonNode user = conversation.path("entries").get(0);
            assertThat(user.path("content").asText()).as("the message as written").isEqualTo("Turn these into a skill");
            assertThat(user.path("attachments")).extracting(a -> a.path("name").asText()).containsExactly("notes.md", "guide.pdf");
            JsonNode pdfChip = user.path("attachments").get(1);
            assertThat(pdfChip.path("mediaType").asText()).isEqualTo("application/pdf");
            assertThat(pdfChip.path("size").asLong()).isEqualTo(pdf.length);
            assertThat(conversation.path("turns").get(0).path("attachments")).hasSize(2);

            HttpResponse<byte[]> download = HTTP.send(HttpRequest.newBuilder(URI.create(server.url(pdfChip.path("url").asText()))).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertThat(download.statusCode()).isEqualTo(200);
            assertThat(download.body()).isEqualTo(pdf);
            assertThat(download.headers().firstValue("content-disposition")).hasValue("attachment; filename*=UTF-8''guide.pdf");
            SseClient.Answer text = SseClient.get(server.url(pdfChip.path("url").asText() + "/text"));
            assertThat(text.body()).startsWith("<document name=\"guide.pdf\"").contains("Bloom for 30 seconds.");

            SseClient.postForEvents(server.url("/api/conversations/" + id + "/messages"), Json.write(Json.object().put("content", "Thanks")));
            before = server.sim.requests();
            assertThat(prefixOf(before.get(1).messages(), before.get(0).messages().size()))
                    .as("the second request starts with the first, attachments and all").isEqualTo(before.get(0).messages());
            assertThat(server.writer.flush(Duration.ofSeconds(5))).isTrue();
        }
        try (ServerHarness restarted = new ServerHarness(data, new SimScript(SimReply.of("Still here.")))) {
            SseClient.postForEvents(restarted.url("/api/conversations/" + id + "/messages"), Json.write(Json.object().put("content", "Again")));
            JsonNode after = restarted.sim.requests().getFirst().messages();
            JsonNode last = before.getLast().messages();
            assertThat(Json.write(prefixOf(after, last.size()))).as("after a restart the request still extends the last one byte for byte")
                    .isEqualTo(Json.write(last));
        }
    }

    @Test
    void multipartFormDataAttachesFilesAsThePageSendsThem(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript(SimReply.of("Got it.")))) {
            String id = create(server);
            String boundary = "----skillforge" + System.nanoTime();
            byte[] html = "<html><head><title>T</title><script>steal()</script></head><body><nav>menu</nav><h1>Espresso</h1><p>Tamp <b>evenly</b>.</p></body></html>"
                    .getBytes(StandardCharsets.UTF_8);
            byte[] latin1 = "caf\u00e9 cr\u00e8me, na\u00efve r\u00e9sum\u00e9 \u2014 fa\u00e7ade".getBytes("windows-1252");
            byte[] form = multipart(boundary, "Make a skill", new Part("page.html", "text/html", html), new Part("notes.txt", "text/plain", latin1));

            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(server.url("/api/conversations/" + id + "/messages")))
                    .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                    .POST(HttpRequest.BodyPublishers.ofByteArray(form)).build(), HttpResponse.BodyHandlers.ofString());

            assertThat(response.statusCode()).isEqualTo(200);
            String seen = server.sim.requests().getFirst().messages().get(1).path("content").asText();
            assertThat(seen).contains("<document name=\"page.html\" type=\"text/html\">\n# Espresso\n\nTamp **evenly**.\n</document>")
                    .doesNotContain("steal()").doesNotContain("menu")
                    .contains("café crème, naïve résumé — façade").endsWith("Make a skill");
            JsonNode chips = SseClient.get(server.url("/api/conversations/" + id)).json().path("entries").get(0).path("attachments");
            assertThat(chips).extracting(a -> a.path("name").asText() + " " + a.path("mediaType").asText())
                    .containsExactly("page.html text/html", "notes.txt text/plain");
        }
    }

    @Test
    void theStatelessAgentEndpointTakesAttachmentsOnAUserMessage(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript(SimReply.of("Read it.")))) {
            ObjectNode body = Json.object();
            ObjectNode message = body.putArray("messages").addObject().put("role", "user").put("content", "Summarise");
            message.putArray("attachments").addObject().put("name", "a.py").put("data", base64("print('hi')\n".getBytes(StandardCharsets.UTF_8)));

            SseClient.postForEvents(server.url("/api/agent"), Json.write(body));

            assertThat(server.sim.requests().getFirst().messages().get(1).path("content").asText())
                    .isEqualTo("<document name=\"a.py\" type=\"text/plain\">\nprint('hi')\n</document>\n\nSummarise");
        }
    }

    @Test
    void documentsThatCannotFitTheModelsContextWindowAreRefusedBeforeTheTurn(@TempDir Path data) throws Exception {
        try (ServerHarness server = ServerHarness.builder(data, new SimScript(SimReply.of("Ok."))).contextWindow(2048).start()) {
            String id = create(server);
            String words = "grind coarse and steep the coffee for sixteen hours in the fridge then filter it twice\n".repeat(60);

            SseClient.Answer answer = SseClient.postForAnswer(server.url("/api/conversations/" + id + "/messages"),
                    Json.write(withAttachment("Learn this", "long.txt", "text/plain", base64(words.getBytes(StandardCharsets.UTF_8)))));

            assertThat(answer.status()).isEqualTo(413);
            assertThat(answer.json().path("error").path("message").asText()).contains("context window is 2048 tokens")
                    .contains("attach less, or split it");
            assertThat(server.sim.requests()).isEmpty();
            assertThat(server.writer.flush(Duration.ofSeconds(5))).isTrue();
            assertThat(server.database.entries(id)).isEmpty();
        }
    }

    @Test
    void deletingAConversationDeletesItsFiles(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript(SimReply.of("Ok.")))) {
            String id = create(server);
            byte[] file = "keep me secret".getBytes(StandardCharsets.UTF_8);
            SseClient.postForEvents(server.url("/api/conversations/" + id + "/messages"), Json.write(withAttachment("", "s.txt", "text/plain", base64(file))));
            assertThat(server.writer.flush(Duration.ofSeconds(5))).isTrue();
            assertThat(server.database.attachmentFile(id, Documents.sha256(file))).isPresent();

            assertThat(SseClient.send("DELETE", server.url("/api/conversations/" + id), null).status()).isEqualTo(204);
            assertThat(server.writer.flush(Duration.ofSeconds(5))).isTrue();

            assertThat(server.database.attachmentFile(id, Documents.sha256(file))).isEmpty();
        }
    }

    @Test
    void badAttachmentsAreClearErrorsAndNothingIsStored(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript())) {
            String id = create(server);
            String text = base64("hello".getBytes(StandardCharsets.UTF_8));
            record Case(ObjectNode body, int status, String code, String message) {
            }
            List<Case> cases = List.of(
                    new Case(withAttachment("x", "a.txt", "text/plain", "not base64!"), 400, "invalid_attachment", "attachments[0].data is not valid base64"),
                    new Case(withAttachment("x", "../../etc/passwd", "text/plain", text), 400, "invalid_attachment", "is a path"),
                    new Case(withAttachment("x", "a\u202Etxt.exe", "text/plain", text), 400, "invalid_attachment", "control or invisible"),
                    new Case(withAttachment("x", "empty.txt", "text/plain", ""), 400, "invalid_attachment", "'empty.txt' is empty"),
                    new Case(withAttachment("x", "photo.png", "image/png", text), 415, "unsupported_attachment_type", "image/png"),
                    new Case(withAttachment("x", "doc.docx", "", text), 415, "unsupported_attachment_type", ".docx"),
                    new Case(withAttachment("x", "report.txt", "text/plain", base64("PK\u0003\u0004zip".getBytes(StandardCharsets.ISO_8859_1))),
                            415, "unsupported_attachment_type", "ZIP archive"),
                    new Case(withAttachment("x", "big.txt", "text/plain", base64(new byte[DocumentLimits.MAX_FILE_BYTES + 1])), 413,
                            "attachment_too_large", "per file"),
                    new Case(withAttachment("x", "broken.pdf", "application/pdf", base64("%PDF-1.4\ngarbage".getBytes(StandardCharsets.US_ASCII))),
                            400, "invalid_attachment", "not a readable PDF"),
                    new Case(withAttachment("x", "scan.pdf", "application/pdf", base64(TestDocuments.pdf(""))), 400, "invalid_attachment",
                            "no text"),
                    new Case(withAttachment("x", "bomb.pdf", "application/pdf", base64(TestDocuments.zipBombPdf(200))), 413,
                            "attachment_too_large", "zip bomb"),
                    new Case(withAttachment("x", "fake.pdf", "application/pdf", text), 400, "invalid_attachment", "not a PDF"),
                    new Case(withAttachment("x", "nested.pdf", "application/pdf", base64(TestDocuments.nestedFormsPdf(10, 10, "x"))), 413,
                            "attachment_too_large", "'nested.pdf' draws forms more than 50000 times"),
                    new Case(withAttachment("x", "hex-bomb.pdf", "application/pdf",
                            base64(TestDocuments.bombPdf(100, "\n", "ASCIIHexDecode", "FlateDecode"))), 413, "attachment_too_large",
                            "'hex-bomb.pdf' decodes to more than 64 MiB: refused as a zip bomb"),
                    new Case(withAttachment("x", "quotes.html", "text/html", base64(TestDocuments.nestedHtml("blockquote", 12_500))), 413,
                            "attachment_too_large", "'quotes.html': its text is longer than 400000 characters"));
            for (Case c : cases) {
                SseClient.Answer answer = SseClient.postForAnswer(server.url("/api/conversations/" + id + "/messages"), Json.write(c.body()));
                assertThat(answer.status()).as(c.message()).isEqualTo(c.status());
                assertThat(answer.json().path("error").path("code").asText()).as(c.message()).isEqualTo(c.code());
                assertThat(answer.json().path("error").path("message").asText()).contains(c.message());
            }
            ObjectNode tooMany = Json.object().put("content", "x");
            ArrayNode list = tooMany.putArray("attachments");
            for (int i = 0; i <= DocumentLimits.MAX_FILES; i++) {
                list.addObject().put("name", i + ".txt").put("data", text);
            }
            assertThat(SseClient.postForAnswer(server.url("/api/conversations/" + id + "/messages"), Json.write(tooMany)).status()).isEqualTo(413);

            assertThat(server.writer.flush(Duration.ofSeconds(5))).isTrue();
            assertThat(SseClient.get(server.url("/api/conversations/" + id)).json().path("entries")).isEmpty();
            assertThat(server.database.entries(id)).isEmpty();
            assertThat(server.sim.requests()).isEmpty();
            assertThat(SseClient.get(server.url("/healthz")).status()).as("the server stays healthy").isEqualTo(200);
        }
    }

    // ------------------------------------------------------------------------------ helpers

    private static ObjectNode withAttachment(String content, String name, String type, String data) {
        ObjectNode body = Json.object().put("content", content);
        body.putArray("attachments").addObject().put("name", name).put("mediaType", type).put("data", data);
        return body;
    }

    private static ArrayNode prefixOf(JsonNode messages, int size) {
        ArrayNode prefix = Json.MAPPER.createArrayNode();
        for (int i = 0; i < size; i++) {
            prefix.add(messages.get(i));
        }
        return prefix;
    }

    static String base64(byte[] data) {
        return Base64.getEncoder().encodeToString(data);
    }

    record Part(String name, String type, byte[] data) {
    }

    static byte[] multipart(String boundary, String content, Part... parts) {
        var out = new java.io.ByteArrayOutputStream();
        out.writeBytes(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"content\"\r\n\r\n" + content + "\r\n")
                .getBytes(StandardCharsets.UTF_8));
        for (Part part : parts) {
            out.writeBytes(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"attachments\"; filename=\"" + part.name()
                    + "\"\r\nContent-Type: " + part.type() + "\r\n\r\n").getBytes(StandardCharsets.UTF_8));
            out.writeBytes(part.data());
            out.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
        }
        out.writeBytes(("--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }

    private static String create(ServerHarness server) throws Exception {
        return SseClient.send("POST", server.url("/api/conversations"), "{}").json().path("id").asText();
    }

}
