package dev.skillforge.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.server.JdbcStorage;
import dev.skillforge.server.SkillForgeServer;
import dev.skillforge.server.TemporaryFolders;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.provider.ConfiguredProvider;
import dev.skillforge.server.provider.RetryPolicy;
import dev.skillforge.server.provider.StreamingHttp;
import dev.skillforge.server.provider.openai.OpenAiChatRequest;
import dev.skillforge.server.provider.openai.OpenAiCompatibleProvider;
import dev.skillforge.server.provider.sim.SimProviderServer;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.server.store.ConversationStore;
import dev.skillforge.server.store.JdbcConversationStore;
import dev.skillforge.server.trace.Tracing;
import dev.skillforge.testkit.LatencyInjectingStore;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.UnaryOperator;

/**
 * Time to first event of a turn on a hot conversation, measured over real HTTP, on two servers in
 * one process that differ only in one thing: every call of the second one's database waits 100 ms
 * first. Turns alternate between the two, so both see the same machine noise. If a turn waited on
 * the database, the second column would be 100 ms slower.
 */
final class HotTurnLatencyBench {

    static final Duration INJECTED = Duration.ofMillis(100);
    private static final int WARM_UP = 50;

    private HotTurnLatencyBench() {
    }

    static void run(Path out, int turns) throws Exception {
        Path work = Files.createTempDirectory("skillforge-bench");
        try (SimProviderServer sim = SimProviderServer.startOnLoopback(messages -> SimReply.of("ok"));
             SkillForgeServer plain = server(sim, work.resolve("plain"), UnaryOperator.identity());
             SkillForgeServer slow = server(sim, work.resolve("slow"), store -> new LatencyInjectingStore(store, INJECTED))) {
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            String plainId = create(http, plain);
            String slowId = create(http, slow);
            for (int i = 0; i < WARM_UP; i++) {
                firstEventMillis(http, plain, plainId);
                firstEventMillis(http, slow, slowId);
            }
            double[] plainTimes = new double[turns];
            double[] slowTimes = new double[turns];
            for (int i = 0; i < turns; i++) {
                plainTimes[i] = firstEventMillis(http, plain, plainId);
                slowTimes[i] = firstEventMillis(http, slow, slowId);
            }
            long slowBacklog = slow.writer().pending();
            report(out, turns, plainTimes, slowTimes, slowBacklog);
        } finally {
            TemporaryFolders.delete(work);
        }
    }

    private static SkillForgeServer server(SimProviderServer sim, Path dataDir, UnaryOperator<ConversationStore> wrap) throws Exception {
        return server(sim, dataDir, wrap, Tracing.off());
    }

    static SkillForgeServer server(SimProviderServer sim, Path dataDir, UnaryOperator<ConversationStore> wrap, Tracing tracing)
            throws Exception {
        var client = new OpenAiCompatibleProvider(new OpenAiCompatibleProvider.Settings(sim.baseUrl(), null, SimProviderServer.MODEL,
                true, new StreamingHttp.Timeouts(Duration.ofSeconds(30), Duration.ofSeconds(30)), RetryPolicy.DEFAULT));
        var provider = new ConfiguredProvider(client, "sim", SimProviderServer.MODEL, true, OpenAiChatRequest::messages, () -> { });
        return SkillForgeServer.builder(dataDir).provider(provider)
                .storage(new JdbcStorage(JdbcConversationStore.open(null, null, null, dataDir))).wrapStore(wrap).tracing(tracing).start();
    }

    static String create(HttpClient http, SkillForgeServer server) throws Exception {
        HttpResponse<String> created = http.send(HttpRequest.newBuilder(URI.create(base(server) + "/api/conversations"))
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
        return Json.parse(created.body()).path("id").asText();
    }

    /** Sends a turn and returns the time until its first event arrived; reads the turn to its end. */
    private static double firstEventMillis(HttpClient http, SkillForgeServer server, String id) throws Exception {
        return turn(http, server, id).firstEventMillis();
    }

    /** How long a turn took over HTTP: to its first event, and to the end of its stream. */
    record Timing(double firstEventMillis, double wholeMillis) {
    }

    static Timing turn(HttpClient http, SkillForgeServer server, String id) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(base(server) + "/api/conversations/" + id + "/messages"))
                .header("Content-Type", "application/json").header("Accept", "text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString("{\"content\":\"hello\"}")).build();
        long start = System.nanoTime();
        HttpResponse<InputStream> response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        long first = -1;
        try (BufferedReader body = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = body.readLine()) != null) {
                if (first < 0 && line.startsWith("data:")) {
                    first = System.nanoTime();
                }
            }
        }
        if (response.statusCode() != 200 || first < 0) {
            throw new IllegalStateException("turn failed: HTTP " + response.statusCode());
        }
        return new Timing((first - start) / 1e6, (System.nanoTime() - start) / 1e6);
    }

    private static String base(SkillForgeServer server) {
        return "http://127.0.0.1:" + server.port();
    }

    private static void report(Path out, int turns, double[] plain, double[] slow, long slowBacklog) throws Exception {
        double plainMedian = percentile(plain, 50);
        double slowMedian = percentile(slow, 50);
        double difference = slowMedian - plainMedian;
        System.out.println();
        System.out.printf(Locale.ROOT, "Time to first event of a turn on a hot conversation (%d turns each, interleaved, after %d warm-up turns)%n", turns, WARM_UP);
        System.out.println("| database calls           | median ms | p90 ms | p99 ms | max ms |");
        System.out.println("|--------------------------|----------:|-------:|-------:|-------:|");
        row("as they are", plain);
        row("+" + INJECTED.toMillis() + " ms each", slow);
        System.out.printf(Locale.ROOT, "median difference: %+.3f ms (goal: under 1 ms) -> %s%n", difference, Math.abs(difference) < 1 ? "PASS" : "FAIL");
        System.out.printf(Locale.ROOT, "writes still queued on the slow server at the end: %d (they land in the background)%n", slowBacklog);

        ObjectNode json = Json.object().put("benchmark", "hot-turn").put("turns", turns).put("warmUpTurns", WARM_UP)
                .put("injectedLatencyMs", INJECTED.toMillis()).put("medianDifferenceMs", difference).put("slowWriterBacklog", slowBacklog);
        json.set("plain", stats(plain));
        json.set("slowDatabase", stats(slow));
        Files.createDirectories(out);
        Path file = out.resolve("hot-turn-latency.json");
        Files.writeString(file, Json.write(json) + "\n");
        System.out.println("written: " + file.toAbsolutePath());
    }

    static void row(String label, double[] times) {
        System.out.printf(Locale.ROOT, "| %-24s | %9.3f | %6.3f | %6.3f | %6.3f |%n", label,
                percentile(times, 50), percentile(times, 90), percentile(times, 99), percentile(times, 100));
    }

    static ObjectNode stats(double[] times) {
        ObjectNode node = Json.object().put("medianMs", percentile(times, 50)).put("p90Ms", percentile(times, 90))
                .put("p99Ms", percentile(times, 99)).put("maxMs", percentile(times, 100));
        ArrayNode all = node.putArray("samplesMs");
        Arrays.stream(times).forEach(all::add);
        return node;
    }

    static double percentile(double[] values, double p) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }
}
