package dev.skillforge.server.cache;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.testkit.SseClient;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.server.provider.sim.SimRequest;
import dev.skillforge.testkit.SimScript;
import dev.skillforge.testkit.TestImages;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.server.store.Database;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Cache fidelity measured on a real server (loopback HTTP, the simulated provider's real prefix cache):
 * multi-turn, multi-iteration conversations make no cache break, every model call logs its
 * {@code [Cache Debug]} line, the conversation view has its cache totals, {@code /metrics} counts
 * exactly what ran; and a hand-made break (a stored answer edited in the database) is caught at the
 * right message and character.
 */
class CacheFidelityTest {

    private static final String SKILL = """
            skill set cold-brew
            ---
            name: cold-brew
            description: Make cold brew coffee at home.
            ---
            # Cold brew
            Steep coarse grounds in cold water for 16 hours.
            """;
    /** Long enough that the first prompt passes OpenAI's 1024-token cache minimum. */
    private static final String FIRST_MESSAGE = "Please learn this recipe and keep it as a skill. "
            + "Coffee notes: grind coarse, steep cold. ".repeat(150);

    private final ListAppender<ILoggingEvent> debugLines = new ListAppender<>();
    private final Logger debugLogger = (Logger) LoggerFactory.getLogger(CacheDebug.class);

    @BeforeEach
    void captureDebugLines() {
        debugLines.start();
        debugLogger.setLevel(ch.qos.logback.classic.Level.DEBUG); // the lines are DEBUG (FORGE_CACHE_LOG=debug)
        debugLogger.addAppender(debugLines);
    }

    @AfterEach
    void stopCapturing() {
        debugLogger.detachAppender(debugLines);
        debugLogger.setLevel(null);
    }

    @Test
    void conversationsOfManyTurnsAndIterationsNeverBreakTheCacheAndMetricsCountExactlyWhatRan(@TempDir Path data) throws Exception {
        SimScript script = new SimScript(
                // turn 1: three iterations, three commands (one of them not a command: failed)
                SimReply.of("Let me look. <shell>skill list</shell>"),
                SimReply.of("Saving it. <shell>" + SKILL + "</shell> and <shell>rm -rf /</shell>"),
                SimReply.of("Saved `cold-brew`."),
                // turn 2: two iterations, one command
                SimReply.of("Reading it: <shell>skill get cold-brew</shell>"),
                SimReply.of("It says 16 hours."),
                // turn 3: one iteration
                SimReply.of("You're welcome."),
                // a stateless turn
                SimReply.of("Hello from the stateless loop."));
        try (ServerHarness server = new ServerHarness(data, script)) {
            String id = create(server);
            List<SseClient.Event> first = turn(server, id, FIRST_MESSAGE);
            List<SseClient.Event> second = turn(server, id, "What does it say about time?");
            List<SseClient.Event> third = turn(server, id, "Thanks!");
            List<SseClient.Event> stateless = SseClient.postForEvents(server.url("/api/agent"), SseClient.userMessage("Hi"));

            for (List<SseClient.Event> events : List.of(first, second, third, stateless)) {
                assertThat(events.getLast().text("stopReason")).as("the last event: %s", events.getLast().data()).isEqualTo("complete");
            }
            assertThat(first.getLast().data().path("iterations").asInt()).isEqualTo(3);
            assertThat(server.server.metrics().cacheBreaks()).isZero();

            List<SimRequest> requests = server.sim.requests();
            assertThat(requests).hasSize(7);
            List<SimRequest> conversation = requests.subList(0, 6);
            assertThat(conversation.subList(1, 6)).allSatisfy(later -> assertThat(later.cachedTokens()).isGreaterThanOrEqualTo(1024));

            // One [Cache Debug] line per model call; for the simulation, the share its rule made possible is what it gave.
            List<String> lines = debugLines.list.stream().map(ILoggingEvent::getFormattedMessage).filter(l -> l.startsWith("[Cache Debug]")).toList();
            assertThat(lines).hasSize(7);
            int[] iterations = {0, 1, 2, 0, 1, 0};
            for (int i = 0; i < 6; i++) {
                SimRequest request = conversation.get(i);
                String share = CacheDebug.share(request.cachedTokens(), request.promptTokens());
                assertThat(lines.get(i)).isEqualTo("[Cache Debug] conversation=" + id + " provider=sim model=skillforge-sim-1 iteration="
                        + iterations[i] + " promptTokens=" + request.promptTokens() + " cachedTokens=" + request.cachedTokens()
                        + " cacheWriteTokens=unknown cachedShare=" + share + " possibleShare=" + share);
            }
            assertThat(lines.get(6)).startsWith("[Cache Debug] conversation=sf-").contains(" iteration=0 ").doesNotContain("possibleShare");

            // The conversation view: each turn's usage with its cached share, and the conversation's totals.
            JsonNode view = SseClient.get(server.url("/api/conversations/" + id)).json();
            long input = 0;
            long cached = 0;
            long output = 0;
            int[][] callsOfTurn = {{0, 1, 2}, {3, 4}, {5}};
            List<List<SseClient.Event>> turns = List.of(first, second, third);
            for (int t = 0; t < 3; t++) {
                long turnInput = 0;
                long turnCached = 0;
                for (int call : callsOfTurn[t]) {
                    turnInput += conversation.get(call).promptTokens();
                    turnCached += conversation.get(call).cachedTokens();
                }
                long turnOutput = turns.get(t).stream().filter(e -> e.type().equals("usage")).mapToLong(e -> e.data().path("outputTokens").asLong()).sum();
                JsonNode usage = view.path("turns").get(t).path("usage");
                assertThat(usage.path("inputTokens").asLong()).isEqualTo(turnInput);
                assertThat(usage.path("cacheReadTokens").asLong()).isEqualTo(turnCached);
                assertThat(usage.path("outputTokens").asLong()).isEqualTo(turnOutput);
                assertThat(usage.path("cacheShare").asDouble()).isEqualTo(Math.round(10_000.0 * turnCached / turnInput) / 10_000.0);
                JsonNode lastIteration = view.path("turns").get(t).path("iterations").get(callsOfTurn[t].length - 1).path("usage");
                assertThat(lastIteration.has("cacheShare")).isTrue();
                input += turnInput;
                cached += turnCached;
                output += turnOutput;
            }
            JsonNode total = view.path("usage");
            assertThat(total.path("inputTokens").asLong()).isEqualTo(input);
            assertThat(total.path("outputTokens").asLong()).isEqualTo(output);
            assertThat(total.path("cacheReadTokens").asLong()).isEqualTo(cached);
            assertThat(total.path("cacheShare").asDouble()).isEqualTo(Math.round(10_000.0 * cached / input) / 10_000.0).isGreaterThan(0.5);

            // /metrics over HTTP: exactly this run.
            HttpResponse<String> scraped = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(server.url("/metrics"))).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(scraped.statusCode()).isEqualTo(200);
            assertThat(scraped.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
            String metrics = scraped.body();
            assertThat(value(metrics, "skillforge_runs_total", "mode=\"conversation\"", "provider=\"sim\"", "status=\"complete\"")).isEqualTo(3);
            assertThat(value(metrics, "skillforge_runs_total", "mode=\"stateless\"", "provider=\"sim\"", "status=\"complete\"")).isEqualTo(1);
            assertThat(value(metrics, "skillforge_iterations_total", "provider=\"sim\"")).isEqualTo(7);
            assertThat(value(metrics, "skillforge_commands_total", "status=\"completed\"")).isEqualTo(3);
            assertThat(value(metrics, "skillforge_commands_total", "status=\"failed\"")).isEqualTo(1);
            SimRequest statelessRequest = requests.get(6);
            long statelessOutput = stateless.stream().filter(e -> e.type().equals("usage")).mapToLong(e -> e.data().path("outputTokens").asLong()).sum();
            assertThat(value(metrics, "skillforge_tokens_total", "kind=\"input\"", "model=\"skillforge-sim-1\"", "provider=\"sim\""))
                    .isEqualTo(input + statelessRequest.promptTokens());
            assertThat(value(metrics, "skillforge_tokens_total", "kind=\"cached\"", "provider=\"sim\""))
                    .isEqualTo(cached + statelessRequest.cachedTokens());
            assertThat(value(metrics, "skillforge_tokens_total", "kind=\"output\"", "provider=\"sim\"")).isEqualTo(output + statelessOutput);
            assertThat(value(metrics, "skillforge_cache_breaks_total")).isZero();
            assertThat(value(metrics, "skillforge_active_runs")).isZero();
            assertThat(value(metrics, "skillforge_time_to_first_token_seconds_count", "provider=\"sim\"")).isEqualTo(4);
            assertThat(value(metrics, "skillforge_run_duration_seconds_count", "mode=\"conversation\"")).isEqualTo(3);
            assertThat(metrics).contains("skillforge_run_duration_seconds_bucket{");
        }
    }

    @Test
    void aStoredAnswerEditedInTheDatabaseIsACacheBreakAtItsMessageAndCharacter(@TempDir Path data) throws Exception {
        SimScript script = new SimScript(SimReply.of("Let me look: <shell>skill list</shell>"), SimReply.of("Noted: steep for 16 hours."),
                SimReply.of("Sure."));
        try (ServerHarness server = loggingCacheBreaks(data, script)) {
            String id = create(server);
            assertThat(turn(server, id, "Cold brew, how long?").getLast().text("stopReason")).isEqualTo("complete");
            handOver(server, id);
            try (Connection db = DriverManager.getConnection("jdbc:sqlite:" + data.resolve(Database.SQLITE_FILE_NAME));
                 PreparedStatement edit = db.prepareStatement("UPDATE entries SET content = ? WHERE conversation_id = ? AND content = ?")) {
                // The first answer, which the turn's second request sent.
                edit.setString(1, "Let me check: <shell>skill list</shell>");
                edit.setString(2, id);
                edit.setString(3, "Let me look: <shell>skill list</shell>");
                assertThat(edit.executeUpdate()).isEqualTo(1);
            }

            int offset = "{\"role\":\"assistant\",\"content\":\"Let me ".length();
            assertOneCacheBreak(server, () -> turn(server, id, "Thanks"), "Cache break in conversation " + id
                    + " (sim skillforge-sim-1): request 3 (6 messages) does not start with request 2 (4 messages)",
                    "first difference at message 2, character " + offset);
        }
    }

    /**
     * The guard sees an image's bytes as it sees text: a stored image whose bytes change under the conversation (here
     * by hand in the database) makes the next request differ at that message, inside the image's data URL.
     */
    @Test
    void aStoredImageChangedInTheDatabaseIsACacheBreakAtItsMessage(@TempDir Path data) throws Exception {
        byte[] png = TestImages.png(64, 48);
        try (ServerHarness server = loggingCacheBreaks(data, new SimScript(SimReply.of("A chart."), SimReply.of("Sure.")))) {
            String id = create(server);
            ObjectNode message = Json.object().put("content", "What does this chart show?");
            message.putArray("attachments").addObject().put("name", "chart.png").put("mediaType", "image/png")
                    .put("data", Base64.getEncoder().encodeToString(png));
            assertThat(SseClient.postForEvents(server.url("/api/conversations/" + id + "/messages"), Json.write(message))
                    .getLast().text("stopReason")).isEqualTo("complete");
            handOver(server, id);
            try (Connection db = DriverManager.getConnection("jdbc:sqlite:" + data.resolve(Database.SQLITE_FILE_NAME));
                 PreparedStatement edit = db.prepareStatement("UPDATE attachment_files SET data = ? WHERE conversation_id = ? AND sha256 = ?")) {
                edit.setBytes(1, TestImages.png(64, 49));
                edit.setString(2, id);
                edit.setString(3, dev.skillforge.server.document.Documents.sha256(png));
                assertThat(edit.executeUpdate()).isEqualTo(1);
            }

            int offset = "{\"role\":\"user\",\"content\":[{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64,".length();
            String logged = assertOneCacheBreak(server, () -> turn(server, id, "Thanks"), "Cache break in conversation " + id
                    + " (sim skillforge-sim-1): request 2 (4 messages) does not start with request 1 (2 messages)",
                    "first difference at message 1, character ");
            Matcher character = Pattern.compile("character (\\d+)").matcher(logged);
            assertThat(character.find()).isTrue();
            assertThat(Integer.parseInt(character.group(1))).as("inside the image's base64").isGreaterThan(offset);
        }
    }

    /** A server whose guard logs and counts a cache break, as in production, rather than failing the test at once. */
    private static ServerHarness loggingCacheBreaks(Path data, SimScript script) throws Exception {
        String strict = System.getProperty(PrefixGuard.STRICT_PROPERTY);
        System.setProperty(PrefixGuard.STRICT_PROPERTY, "false");
        try {
            return new ServerHarness(data, script).expectCacheBreaks();
        } finally {
            if (strict == null) {
                System.clearProperty(PrefixGuard.STRICT_PROPERTY);
            } else {
                System.setProperty(PrefixGuard.STRICT_PROPERTY, strict);
            }
        }
    }

    /**
     * Another instance asks for the conversation: this one lets it go (flushing and releasing it), so the next turn loads
     * it from the database, where the test changes it meanwhile.
     */
    private static void handOver(ServerHarness server, String id) throws Exception {
        server.database.acquireLease(id, "another-instance", System.currentTimeMillis(), 15_000);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (server.database.leasesHeldBy(server.conversationHost.instanceId()).contains(id)) {
            assertThat(System.nanoTime()).as("the conversation is handed over").isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    private interface Turn {
        List<SseClient.Event> run() throws Exception;
    }

    /**
     * {@code turn} completes, and the guard logs one cache break that starts with {@code start} and contains {@code where}
     * (returned), and counts it.
     */
    private static String assertOneCacheBreak(ServerHarness server, Turn turn, String start, String where) throws Exception {
        ListAppender<ILoggingEvent> warnings = new ListAppender<>();
        warnings.start();
        Logger guardLogger = (Logger) LoggerFactory.getLogger(PrefixGuard.class);
        guardLogger.addAppender(warnings);
        try {
            assertThat(turn.run().getLast().text("stopReason")).isEqualTo("complete");
        } finally {
            guardLogger.detachAppender(warnings);
        }
        assertThat(server.server.metrics().cacheBreaks()).isEqualTo(1);
        List<String> logged = warnings.list.stream().filter(e -> e.getLevel() == ch.qos.logback.classic.Level.WARN)
                .map(ILoggingEvent::getFormattedMessage).toList();
        assertThat(logged).singleElement().asString().startsWith(start).contains(where);
        assertThat(value(SseClient.get(server.url("/metrics")).body(), "skillforge_cache_breaks_total")).isEqualTo(1);
        return logged.getFirst();
    }

    /** The value of the one sample of {@code name} whose labels include all of {@code labels}. */
    static long value(String metrics, String name, String... labels) {
        Pattern sample = Pattern.compile("^" + Pattern.quote(name) + "(\\{([^}]*)})? (\\S+)$", Pattern.MULTILINE);
        Matcher matcher = sample.matcher(metrics);
        Double found = null;
        while (matcher.find()) {
            String have = matcher.group(2) == null ? "" : matcher.group(2);
            boolean all = true;
            for (String label : labels) {
                all &= List.of(have.split(",")).contains(label);
            }
            if (all) {
                assertThat(found).as("one sample of %s with %s", name, List.of(labels)).isNull();
                found = Double.parseDouble(matcher.group(3));
            }
        }
        assertThat(found).as("a sample of %s with %s in\n%s", name, List.of(labels), metrics).isNotNull();
        assertThat(found % 1).isZero();
        return found.longValue();
    }

    private static String create(ServerHarness server) throws Exception {
        return SseClient.send("POST", server.url("/api/conversations"), "{}").json().path("id").asText();
    }

    private static List<SseClient.Event> turn(ServerHarness server, String id, String content) throws Exception {
        return SseClient.postForEvents(server.url("/api/conversations/" + id + "/messages"), Json.write(Json.object().put("content", content)));
    }
}
