package dev.skillforge.server.document;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.provider.sim.DemoAgent;
import dev.skillforge.server.provider.sim.SimRequest;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.testkit.SimScript;
import dev.skillforge.testkit.SseClient;
import dev.skillforge.testkit.TestImages;
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
 * Images through the HTTP API, on a real server with the SQLite store and the simulated provider: the model is sent
 * them natively, every later request carries the same bytes (after a restart too), the conversation shows them with
 * their size, the download is the image with a safe type; a model that does not see refuses them, and hostile images
 * are clear errors that leave nothing stored.
 */
class ImageApiTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    /** Long enough that the first prompt passes the simulated cache's 1024-token minimum. */
    private static final String QUESTION = "What is on this screenshot? "
            + "The dashboard has totals per region and a chart of weekly sales. ".repeat(120);

    @Test
    void anImageIsSentNativelyAndEveryLaterRequestCarriesTheSameBytesAcrossTurnsAndARestart(@TempDir Path data) throws Exception {
        byte[] png = TestImages.png(64, 48);
        String sha = Documents.sha256(png);
        String id;
        List<SimRequest> before;
        try (ServerHarness server = new ServerHarness(data, new DemoAgent(Duration.ZERO))) {
            id = create(server);
            List<SseClient.Event> events = SseClient.postForEvents(server.url("/api/conversations/" + id + "/messages"),
                    Json.write(withImage(QUESTION, "shot.png", "image/png", png)));
            assertThat(events.getLast().text("stopReason")).isEqualTo("complete");
            assertThat(events.stream().filter(e -> e.type().equals("text")).map(e -> e.text("content")).reduce("", String::concat))
                    .as("the simulation says what it was sent").contains("I received an image of 64x48 (image/png)");

            JsonNode sent = server.sim.requests().getFirst().messages().get(1);
            assertThat(Json.write(sent)).isEqualTo("{\"role\":\"user\",\"content\":[{\"type\":\"image_url\",\"image_url\":{\"url\":"
                    + "\"data:image/png;base64," + Base64.getEncoder().encodeToString(png) + "\"}},{\"type\":\"text\",\"text\":"
                    + Json.write(new com.fasterxml.jackson.databind.node.TextNode(QUESTION)) + "}]}");

            JsonNode chip = SseClient.get(server.url("/api/conversations/" + id)).json().path("entries").get(0).path("attachments").get(0);
            assertThat(chip.path("mediaType").asText()).isEqualTo("image/png");
            assertThat(chip.path("width").asInt()).isEqualTo(64);
            assertThat(chip.path("height").asInt()).isEqualTo(48);
            assertThat(chip.path("sha256").asText()).isEqualTo(sha);

            HttpResponse<byte[]> download = HTTP.send(HttpRequest.newBuilder(URI.create(server.url(chip.path("url").asText()))).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertThat(download.statusCode()).isEqualTo(200);
            assertThat(download.body()).isEqualTo(png);
            assertThat(download.headers().firstValue("content-type")).hasValue("image/png");
            assertThat(download.headers().firstValue("x-content-type-options")).hasValue("nosniff");
            assertThat(download.headers().firstValue("content-disposition")).hasValue("attachment; filename*=UTF-8''shot.png");

            String markdown = SseClient.get(server.url("/api/conversations/" + id + "/export?format=markdown")).body();
            assertThat(markdown).contains("_Attached: shot.png (image/png, 64×48, " + png.length + " bytes)_")
                    .contains("![shot.png](/api/conversations/" + id + "/attachments/" + sha + ")");
            assertThat(Json.write(SseClient.get(server.url("/api/conversations/" + id + "/export?format=json")).json().get(1)))
                    .as("the JSON export is what the provider is sent next").isEqualTo(Json.write(sent));

            SseClient.postForEvents(server.url("/api/conversations/" + id + "/messages"), Json.write(Json.object().put("content", "Thanks")));
            before = server.sim.requests();
            assertExtends(before.get(1), before.get(0));
            assertThat(before.get(1).cachedTokens()).as("the simulation's cache served the image's prefix").isPositive();
            assertThat(server.writer.flush(Duration.ofSeconds(5))).isTrue();
        }
        try (ServerHarness restarted = new ServerHarness(data, new DemoAgent(Duration.ZERO))) {
            SseClient.postForEvents(restarted.url("/api/conversations/" + id + "/messages"), Json.write(Json.object().put("content", "Again")));
            // A new simulation has an empty cache: what is checked is that the stored image reads back as the same bytes.
            assertExtends(restarted.sim.requests().getFirst(), before.getLast());
        }
    }

    @Test
    void theStatelessEndpointSendsTheImagesOfEveryMessage(@TempDir Path data) throws Exception {
        byte[] jpeg = TestImages.jpeg(30, 20);
        try (ServerHarness server = new ServerHarness(data, new DemoAgent(Duration.ZERO))) {
            ObjectNode body = Json.object();
            ObjectNode message = body.putArray("messages").addObject().put("role", "user").put("content", "");
            message.putArray("attachments").addObject().put("name", "photo.jpg").put("data", Base64.getEncoder().encodeToString(jpeg));

            List<SseClient.Event> events = SseClient.postForEvents(server.url("/api/agent"), Json.write(body));

            assertThat(events.getLast().text("stopReason")).isEqualTo("complete");
            JsonNode content = server.sim.requests().getFirst().messages().get(1).path("content");
            assertThat(content).hasSize(1).as("an empty text is left out");
            assertThat(content.get(0).path("image_url").path("url").asText()).startsWith("data:image/jpeg;base64,/9j/");
        }
    }

    /** On each wire format: a model that does not see is sent no image; the conversation and stateless doors both answer 415 naming it. */
    @Test
    void aModelThatDoesNotSeeRefusesImagesWith415NamingItAndNothingIsStored(@TempDir Path data) throws Exception {
        List<ServerHarness.SimProvider> blind = List.of(ServerHarness.SimProvider.openAi("text", "text-only-1", 131_072).blind(),
                ServerHarness.SimProvider.gemini("gemini-text", "text-only-2", 131_072).blind(),
                ServerHarness.SimProvider.anthropic("claude-text", "text-only-3", 131_072, null).blind());
        try (ServerHarness server = ServerHarness.builder(data, new SimScript()).providers(blind).start()) {
            JsonNode providers = SseClient.get(server.url("/api/providers")).json().path("providers");
            for (int i = 0; i < blind.size(); i++) {
                String model = blind.get(i).model();
                assertThat(providers.get(i).path("vision").path("sees").asBoolean()).as(model).isFalse();
                String id = SseClient.send("POST", server.url("/api/conversations"),
                        Json.write(Json.object().put("provider", blind.get(i).name()))).json().path("id").asText();
                SseClient.Answer answer = SseClient.postForAnswer(server.url("/api/conversations/" + id + "/messages"),
                        Json.write(withImage("Look", "shot.png", "image/png", TestImages.png(8, 8))));
                assertThat(answer.status()).as(model).isEqualTo(415);
                assertThat(answer.json().path("error").path("code").asText()).isEqualTo("model_sees_no_images");
                assertThat(answer.json().path("error").path("message").asText()).startsWith("The model " + model + " does not see images");
                assertThat(server.writer.flush(Duration.ofSeconds(5))).isTrue();
                assertThat(server.database.entries(id)).as(model).isEmpty();
            }

            ObjectNode stateless = Json.object();
            ObjectNode message = stateless.putArray("messages").addObject().put("role", "user").put("content", "Look");
            message.putArray("attachments").addObject().put("name", "shot.png").put("data",
                    Base64.getEncoder().encodeToString(TestImages.png(8, 8)));
            SseClient.Answer statelessAnswer = SseClient.postForAnswer(server.url("/api/agent"), Json.write(stateless));
            assertThat(statelessAnswer.status()).isEqualTo(415);
            assertThat(statelessAnswer.json().path("error").path("message").asText()).contains("text-only-1");
            assertThat(server.sim.requests()).as("no image, and no request, reached any wire").isEmpty();
        }
    }

    @Test
    void hostileImagesAreClearErrorsAndNothingIsStored(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript())) {
            String id = create(server);
            byte[] png = TestImages.png(16, 16);
            record Case(ObjectNode body, int status, String code, String message) {
            }
            ObjectNode tooMany = Json.object().put("content", "x");
            ArrayNode list = tooMany.putArray("attachments");
            for (int i = 0; i <= DocumentLimits.MAX_FILES; i++) {
                list.addObject().put("name", i + ".png").put("data", Base64.getEncoder().encodeToString(png));
            }
            List<Case> cases = List.of(
                    new Case(withImage("x", "shot.jpg", "image/jpeg", png), 415, "unsupported_attachment_type", "its bytes are a PNG"),
                    new Case(withImage("x", "notes.png", "", "plain notes, not a picture".getBytes(StandardCharsets.UTF_8)), 415,
                            "unsupported_attachment_type", "its bytes are not a PNG, JPEG, WebP or GIF image"),
                    new Case(withImage("x", "cut.png", "image/png", TestImages.truncated(png, 20)), 400, "invalid_attachment", "cut short"),
                    new Case(withImage("x", "bomb.png", "image/png", TestImages.pngHeader(60_000, 60_000)), 400, "image_too_big",
                            "60000x60000 pixels; the limit is 8000 on a side"),
                    new Case(withImage("x", "drawing.svg", "image/svg+xml", "<svg onload='alert(1)'/>".getBytes(StandardCharsets.UTF_8)), 415,
                            "unsupported_attachment_type", "an SVG is not accepted as an image"),
                    new Case(tooMany, 413, "attachment_too_large", "11 files are attached; the limit is 10 per message"));
            for (Case c : cases) {
                SseClient.Answer answer = SseClient.postForAnswer(server.url("/api/conversations/" + id + "/messages"), Json.write(c.body()));
                assertThat(answer.status()).as(c.message()).isEqualTo(c.status());
                assertThat(answer.json().path("error").path("code").asText()).as(c.message()).isEqualTo(c.code());
                assertThat(answer.json().path("error").path("message").asText()).contains(c.message());
            }
            assertThat(server.writer.flush(Duration.ofSeconds(5))).isTrue();
            assertThat(server.database.entries(id)).isEmpty();
            assertThat(server.database.attachmentFile(id, Documents.sha256(png))).isEmpty();
            assertThat(server.sim.requests()).isEmpty();
        }
    }

    // ------------------------------------------------------------------------------ helpers

    /** The later request's conversation starts with the earlier one's, byte for byte. */
    private static void assertExtends(SimRequest later, SimRequest earlier) {
        String before = Json.write(earlier.messages());
        assertThat(Json.write(later.messages())).as("the request extends the one before it, images and all")
                .startsWith(before.substring(0, before.length() - 1));
    }

    private static ObjectNode withImage(String content, String name, String type, byte[] data) {
        ObjectNode body = Json.object().put("content", content);
        body.putArray("attachments").addObject().put("name", name).put("mediaType", type).put("data", Base64.getEncoder().encodeToString(data));
        return body;
    }

    private static String create(ServerHarness server) throws Exception {
        return SseClient.send("POST", server.url("/api/conversations"), "{}").json().path("id").asText();
    }
}
