package dev.skillforge.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.skillforge.server.config.SecuritySettings;
import dev.skillforge.server.json.Json;
import java.util.OptionalLong;
import java.time.Duration;
import dev.skillforge.testkit.ServerProcess;
import dev.skillforge.server.access.TeamSettings;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.testkit.SimScript;
import dev.skillforge.testkit.SseClient;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The OpenAPI document at {@code /openapi.json} and the running server cannot drift apart: the document is valid
 * OpenAPI 3.1 (swagger-parser) with schemas valid JSON Schema 2020-12 (networknt); every route the server registers is
 * in it (also the sign-in route a token adds); and every documented operation, called as its example says and then
 * wrongly (an unknown id, malformed JSON, a body that is not JSON), answers with a documented status, a documented
 * content type, and a body its schema accepts — turns' event streams event by event, an endless stream up to a first
 * event the test causes. Path parameters are a real conversation, skill, skill file, version and attached file.
 */
class OpenApiDriftTest {

    private static final String TOKEN = "a-token-for-the-drift-test-0123456789";
    /** Mounted beside the API's router, not in it: the MCP servlet and the static document itself. */
    private static final Set<String> NOT_ROUTED = Set.of("POST /mcp", "GET /openapi.json");
    private static final String SKILL = "cold-brew";
    /** Event streams that stay open as long as the client does: read up to their first event, which the test causes. */
    private static final Set<String> ENDLESS = Set.of("GET /api/conversations/changes");
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final SchemaRegistry SCHEMAS = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);

    @Test
    void theDocumentIsValidOpenApi31AndEveryRouteIsInIt(@TempDir Path data) throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript())) {
            String text = SseClient.get(server.url("/openapi.json")).body();
            ParseOptions options = new ParseOptions();
            options.setResolve(true);
            SwaggerParseResult parsed = new OpenAPIV3Parser().readContents(text, null, options);
            assertThat(parsed.getMessages()).as("swagger-parser's findings").isEmpty();
            assertThat(parsed.getOpenAPI().getOpenapi()).isEqualTo("3.1.0");
            JsonNode doc = Json.parse(text);
            doc.path("components").path("schemas").properties().forEach(schema ->
                    assertThat(schemaOf(doc, Json.object().put("$ref", "#/components/schemas/" + schema.getKey()))).isNotNull());

            Set<String> documented = documented(doc);
            assertThat(documented).as("every route the server registers is documented").containsAll(server.server.routes());
            Set<String> routed = new TreeSet<>(server.server.routes());
            routed.addAll(NOT_ROUTED);
            routed.add("POST /signin"); // only with a token: checked below
            Set<String> team = teamServerRoutes(data.resolve("team"));
            assertThat(documented).as("every route a team server registers is documented").containsAll(team);
            routed.addAll(team);
            assertThat(routed).as("every documented route is served").containsAll(documented);
        }
        try (ServerHarness server = ServerHarness.builder(data.resolve("token"), new SimScript())
                .security(SecuritySettings.from(Map.of("FORGE_API_TOKEN", TOKEN))).start()) {
            HttpResponse<String> document = HTTP.send(HttpRequest.newBuilder(URI.create(server.url("/openapi.json")))
                    .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(document.statusCode()).isEqualTo(200);
            Set<String> documented = documented(Json.parse(document.body()));
            assertThat(documented).as("with a token").containsAll(server.server.routes()).contains("POST /signin");
            HttpResponse<String> wrong = HTTP.send(HttpRequest.newBuilder(URI.create(server.url("/signin")))
                    .header("Content-Type", "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString("token=wrong"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(wrong.statusCode()).isEqualTo(401);
            assertThat(wrong.headers().firstValue("Content-Type").orElse("")).startsWith("text/html");
        }
    }

    @Test
    void everyDocumentedOperationAnswersAsDescribed(@TempDir Path data) throws Exception {
        SimReply answer = SimReply.of("You have ", "one skill.");
        try (ServerHarness server = new ServerHarness(data, new SimScript(answer, answer, answer, answer, answer))) {
            JsonNode doc = Json.parse(SseClient.get(server.url("/openapi.json")).body());
            server.skills.save(SKILL, "---\nname: cold-brew\ndescription: Make cold brew.\n---\n# Cold brew\nSteep 16 hours.\n");
            String id = SseClient.send("POST", server.url("/api/conversations"), "{}").json().path("id").asText();
            String sha256 = attach(server, id, "notes.md", "# Cold brew\n\nSteep 16 hours.\n");
            List<String> findings = new ArrayList<>();
            for (Operation op : operations(doc, new TreeSet<>(server.server.routes()))) {
                String path = fixtures(op.path()).replace("{id}", id).replace("{name}", SKILL).replace("{sha256}", sha256);
                JsonNode example = op.node().path("requestBody").path("content").path("application/json").path("example");
                String accept = op.node().path("responses").path("200").path("content").has("text/event-stream")
                        ? "application/json, text/event-stream" : "*/*";
                if (ENDLESS.contains(op.method() + " " + op.path())) {
                    check(doc, op, "until its first event", firstEvent(server, path, accept), null, findings);
                    continue;
                }
                check(doc, op, "as its example says", send(server, op.method(), path, example.isMissingNode() ? null : Json.write(example),
                        "application/json", accept), null, findings);
                if (op.method().equals("PUT") && op.path().equals("/api/skills/{name}")) {
                    // A PUT to a valid new name creates the skill (201, as its example did for an existing one, 200); one to a
                    // name that cannot be one is refused as an invalid skill.
                    check(doc, op, "with an invalid name", send(server, op.method(), op.path().replace("{name}", "No-Such-Skill"),
                            Json.write(example), "application/json", accept), 400, findings);
                } else if (op.path().contains("{")) {
                    String unknown = fixtures(op.path()).replace("{id}", "00000000-0000-4000-8000-000000000000")
                            .replace("{name}", "no-such-skill").replace("{sha256}", sha256);
                    check(doc, op, "with an unknown id", send(server, op.method(), unknown, example.isMissingNode() ? null : Json.write(example),
                            "application/json", accept), 404, findings);
                }
                if (op.node().path("requestBody").path("content").has("application/json") && !op.path().equals("/mcp")) {
                    check(doc, op, "with malformed JSON", send(server, op.method(), path, "{", "application/json", accept), 400, findings);
                    check(doc, op, "with a body that is not JSON", send(server, op.method(), path, "hello", "text/plain", accept), 415, findings);
                }
            }
            Answer unknownRoute = send(server, "GET", "/api/no-such-endpoint", null, "application/json", "*/*");
            assertThat(unknownRoute.status()).isEqualTo(404);
            assertThat(errors(doc, Json.object().put("$ref", "#/components/schemas/Error"), Json.parse(unknownRoute.body()))).isEmpty();
            assertThat(findings).as("answers that differ from /openapi.json").isEmpty();
        }
    }

    private record Operation(String method, String path, JsonNode node) {
    }

    /** A skill's file and version: the skill's script (written by the PUT of its file) and its first version. */
    private static String fixtures(String path) {
        return path.replace("{path}", "scripts/ratio.py").replace("{version}", "1");
    }

    /**
     * The routes of a team server ({@code FORGE_OIDC_ISSUER}): signing in, tokens, people. Its issuer is never asked, since
     * nobody signs in here (the people tests do, at a real one).
     */
    private static Set<String> teamServerRoutes(Path data) throws Exception {
        TeamSettings team = new TeamSettings(URI.create("http://127.0.0.1:1/no-issuer"), "skillforge", null,
                URI.create("http://127.0.0.1:" + ServerProcess.freePort()), Set.of(), OptionalLong.empty(), Duration.ofDays(1));
        try (ServerHarness server = ServerHarness.builder(data, new SimScript()).team(team).start()) {
            return new TreeSet<>(server.server.routes());
        }
    }

    /** Every documented operation a server without people serves, the deleting ones last (they take the fixtures away). */
    private static List<Operation> operations(JsonNode doc, Set<String> served) {
        List<Operation> all = new ArrayList<>();
        doc.path("paths").properties().forEach(path -> path.getValue().properties().forEach(method -> {
            if (!method.getKey().equals("parameters") && !path.getKey().equals("/signin")
                    && (served.contains(method.getKey().toUpperCase() + " " + path.getKey()) || path.getKey().equals("/mcp"))) {
                all.add(new Operation(method.getKey().toUpperCase(), path.getKey(), method.getValue()));
            }
        }));
        all.sort(Comparator.comparing(op -> op.method().equals("DELETE")));
        return all;
    }

    /** Attaches a text file to a message of conversation {@code id} (a turn): the SHA-256 its attachment is stored under. */
    private static String attach(ServerHarness server, String id, String name, String text) throws Exception {
        String data = Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
        SseClient.postForEvents(server.url("/api/conversations/" + id + "/messages"), Json.write(Json.object().put("content", "Read this")
                .set("attachments", Json.MAPPER.createArrayNode().add(Json.object().put("name", name).put("data", data)))));
        JsonNode attachment = SseClient.get(server.url("/api/conversations/" + id)).json().path("entries").path(0).path("attachments").path(0);
        assertThat(attachment.path("name").asText()).isEqualTo(name);
        return attachment.path("sha256").asText();
    }

    /**
     * Opens an endless event stream, makes a change it must tell (a new conversation), and answers with what came up to its
     * first event.
     */
    private static Answer firstEvent(ServerHarness server, String path, String accept) throws Exception {
        HttpResponse<InputStream> stream = HTTP.send(HttpRequest.newBuilder(URI.create(server.url(path))).header("Accept", accept).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        try (SseClient.EventReader reader = new SseClient.EventReader(stream.body())) {
            String body = "";
            if (stream.statusCode() == 200) {
                SseClient.send("POST", server.url("/api/conversations"), "{}");
                SseClient.Event first = reader.next();
                body = first == null ? "" : "data: " + Json.write(first.data()) + "\n\n";
            }
            return new Answer(stream.statusCode(), stream.headers().firstValue("Content-Type").orElse(""), body);
        }
    }

    /** What the checks read of an answer. */
    private record Answer(int status, String contentType, String body) {
        static Answer of(HttpResponse<String> response) {
            return new Answer(response.statusCode(), response.headers().firstValue("Content-Type").orElse(""), response.body());
        }
    }

    private static Set<String> documented(JsonNode doc) {
        Set<String> out = new TreeSet<>();
        doc.path("paths").properties().forEach(path -> path.getValue().properties().forEach(method -> {
            if (!method.getKey().equals("parameters")) {
                out.add(method.getKey().toUpperCase() + " " + path.getKey());
            }
        }));
        return out;
    }

    private static Answer send(ServerHarness server, String method, String path, String body, String type, String accept)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.url(path))).header("Accept", accept);
        if (body != null) {
            request.header("Content-Type", type).method(method, HttpRequest.BodyPublishers.ofString(body));
        } else {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        }
        return Answer.of(HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString()));
    }

    /** Adds to {@code findings} how the answer differs from the operation's documented responses. */
    private static void check(JsonNode doc, Operation op, String how, Answer answer, Integer expectedStatus, List<String> findings)
            throws Exception {
        String where = op.method() + " " + op.path() + " " + how + ": ";
        int status = answer.status();
        if (expectedStatus != null && status != expectedStatus) {
            findings.add(where + "status " + status + ", expected " + expectedStatus + " (" + answer.body() + ")");
            return;
        }
        JsonNode response = op.node().path("responses").path(String.valueOf(status));
        if (response.isMissingNode()) {
            findings.add(where + "status " + status + " is not documented (" + answer.body() + ")");
            return;
        }
        if (response.has("$ref")) {
            response = doc.at(response.get("$ref").asText().substring(1));
        }
        if (!response.has("content")) {
            if (!answer.body().isEmpty()) {
                findings.add(where + "documented without a body, answered " + answer.body());
            }
            return;
        }
        String type = answer.contentType().split(";")[0].strip();
        JsonNode media = response.path("content").path(type);
        if (media.isMissingNode()) {
            findings.add(where + "content type " + type + " is not documented for " + status);
            return;
        }
        if (type.equals("text/event-stream")) {
            JsonNode eventSchema = media.path("x-event-schema");
            List<SseClient.Event> events = SseClient.readEvents(new ByteArrayInputStream(answer.body().getBytes(StandardCharsets.UTF_8)),
                    Integer.MAX_VALUE);
            if (events.isEmpty() && !op.path().equals("/mcp")) {
                findings.add(where + "an empty event stream");
            }
            for (SseClient.Event event : eventSchema.isMissingNode() ? List.<SseClient.Event>of() : events) {
                errors(doc, eventSchema, event.data()).forEach(error -> findings.add(where + "event " + event.data() + ": " + error));
            }
        } else if (type.equals("application/json") && media.has("schema")) {
            errors(doc, media.get("schema"), Json.parse(answer.body())).forEach(error -> findings.add(where + error));
        }
    }

    private static List<String> errors(JsonNode doc, JsonNode schema, JsonNode value) {
        return schemaOf(doc, schema).validate(value).stream().map(Object::toString).toList();
    }

    /** A schema of the document, its {@code #/components/…} references resolved against the document. */
    private static Schema schemaOf(JsonNode doc, JsonNode schema) {
        ObjectNode root = Json.object().put("$schema", "https://json-schema.org/draft/2020-12/schema");
        for (Iterator<Map.Entry<String, JsonNode>> it = schema.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            root.set(field.getKey(), field.getValue());
        }
        root.set("components", doc.get("components"));
        return SCHEMAS.getSchema(root);
    }
}
