package dev.skillforge.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import dev.skillforge.server.SkillForgeServer;
import dev.skillforge.server.TemporaryFolders;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.provider.sim.SimProviderServer;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.server.trace.Tracing;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

/**
 * What tracing costs a turn: the hot-turn measurement (docs/testing.md) on two servers in one process that differ only
 * in tracing, off on one and on the other (exporting over OTLP/HTTP to a loopback sink that takes every export and
 * answers 200, as a collector would). Turns alternate between the two, so both see the same machine noise.
 */
final class TracingOverheadBench {

    private static final int WARM_UP = 50;

    private TracingOverheadBench() {
    }

    static void run(Path out, int turns) throws Exception {
        Path work = Files.createTempDirectory("skillforge-bench");
        AtomicLong exports = new AtomicLong();
        AtomicLong bytes = new AtomicLong();
        HttpServer sink = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        sink.createContext("/v1/traces", exchange -> {
            try (exchange; InputStream body = exchange.getRequestBody()) {
                bytes.addAndGet(body.readAllBytes().length);
                exports.incrementAndGet();
                exchange.sendResponseHeaders(200, -1);
            }
        });
        sink.start();
        Tracing tracing = Tracing.fromEnvironment(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:" + sink.getAddress().getPort()));
        try (SimProviderServer sim = SimProviderServer.startOnLoopback(messages -> SimReply.of("ok"));
             SkillForgeServer plain = HotTurnLatencyBench.server(sim, work.resolve("plain"), UnaryOperator.identity(), Tracing.off());
             SkillForgeServer traced = HotTurnLatencyBench.server(sim, work.resolve("traced"), UnaryOperator.identity(), tracing)) {
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            String plainId = HotTurnLatencyBench.create(http, plain);
            String tracedId = HotTurnLatencyBench.create(http, traced);
            for (int i = 0; i < WARM_UP; i++) {
                HotTurnLatencyBench.turn(http, plain, plainId);
                HotTurnLatencyBench.turn(http, traced, tracedId);
            }
            double[][] off = new double[2][turns];
            double[][] on = new double[2][turns];
            for (int i = 0; i < turns; i++) {
                keep(off, i, HotTurnLatencyBench.turn(http, plain, plainId));
                keep(on, i, HotTurnLatencyBench.turn(http, traced, tracedId));
            }
            traced.core().tracing().close(); // the last spans are exported before the figures are read
            report(out, turns, off, on, exports.get(), bytes.get());
        } finally {
            sink.stop(0);
            TemporaryFolders.delete(work);
        }
    }

    private static void keep(double[][] into, int i, HotTurnLatencyBench.Timing timing) {
        into[0][i] = timing.firstEventMillis();
        into[1][i] = timing.wholeMillis();
    }

    private static void report(Path out, int turns, double[][] off, double[][] on, long exports, long bytes) throws Exception {
        double firstDifference = HotTurnLatencyBench.percentile(on[0], 50) - HotTurnLatencyBench.percentile(off[0], 50);
        double wholeDifference = HotTurnLatencyBench.percentile(on[1], 50) - HotTurnLatencyBench.percentile(off[1], 50);
        System.out.println();
        System.out.printf(Locale.ROOT, "A turn on a hot conversation, tracing off and on (%d turns each, interleaved, after %d warm-up turns)%n",
                turns, WARM_UP);
        System.out.println("| tracing, measured to     | median ms | p90 ms | p99 ms | max ms |");
        System.out.println("|--------------------------|----------:|-------:|-------:|-------:|");
        HotTurnLatencyBench.row("off, first event", off[0]);
        HotTurnLatencyBench.row("on, first event", on[0]);
        HotTurnLatencyBench.row("off, whole turn", off[1]);
        HotTurnLatencyBench.row("on, whole turn", on[1]);
        System.out.printf(Locale.ROOT, "median difference: first event %+.3f ms, whole turn %+.3f ms%n", firstDifference, wholeDifference);
        System.out.printf(Locale.ROOT, "exported: %d requests, %d bytes (%.0f bytes a turn)%n", exports, bytes,
                (double) bytes / (turns + WARM_UP));

        ObjectNode json = Json.object().put("benchmark", "hot-turn-tracing").put("turns", turns).put("warmUpTurns", WARM_UP)
                .put("firstEventMedianDifferenceMs", firstDifference).put("wholeTurnMedianDifferenceMs", wholeDifference)
                .put("exportRequests", exports).put("exportBytes", bytes);
        json.set("offFirstEvent", HotTurnLatencyBench.stats(off[0]));
        json.set("onFirstEvent", HotTurnLatencyBench.stats(on[0]));
        json.set("offWholeTurn", HotTurnLatencyBench.stats(off[1]));
        json.set("onWholeTurn", HotTurnLatencyBench.stats(on[1]));
        Files.createDirectories(out);
        Path file = out.resolve("hot-turn-tracing.json");
        Files.writeString(file, Json.write(json) + "\n");
        System.out.println("written: " + file.toAbsolutePath());
    }
}
