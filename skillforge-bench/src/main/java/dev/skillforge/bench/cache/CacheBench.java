package dev.skillforge.bench.cache;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import dev.skillforge.server.json.Json;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * {@code ./skillforge bench cache}: the suite of scripted conversations run through the real server
 * (HTTP, conversation API, SSE) against the simulated provider, under each cache rule it implements,
 * with SkillForge's history and with the baseline strategies; prints the table, writes the JSON, and
 * fails (exit 1) when SkillForge misses its targets ({@link Targets}).
 */
public final class CacheBench {

    static final int PARALLEL_RUNS = 4;

    private CacheBench() {
    }

    /**
     * @param args       {@code [--quick] [--out FILE]}: the test's smaller suite; where the JSON goes
     * @param defaultDir where the JSON goes without {@code --out} (as {@code cache.json})
     * @return the exit code: 0 when SkillForge met its targets, 1 when it missed one, 2 for unknown arguments
     */
    public static int run(List<String> args, Path defaultDir) throws Exception {
        boolean quick = false;
        Path file = defaultDir.resolve("cache.json");
        for (int i = 0; i < args.size(); i++) {
            boolean outWithFile = args.get(i).equals("--out") && i + 1 < args.size();
            if (args.get(i).equals("--quick")) {
                quick = true;
            } else if (outWithFile) {
                file = Path.of(args.get(++i));
            } else {
                System.err.println("usage: ./skillforge bench cache [--quick] [--out FILE]");
                return 2;
            }
        }
        List<ScriptedConversation> suite = quick ? CacheSuite.quick() : CacheSuite.standard();

        quietLogs();
        long start = System.nanoTime();
        List<Measurement> measurements = measure(suite);
        double seconds = (System.nanoTime() - start) / 1e9;
        List<String> misses = Targets.misses(measurements);

        CacheReport.print(System.out, suite, measurements, misses, seconds);
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, Json.write(CacheReport.json(suite, measurements, misses, seconds)) + "\n");
        System.out.println("written: " + file.toAbsolutePath());
        return misses.isEmpty() ? 0 : 1;
    }

    /**
     * The suite under every rule and strategy, rule by rule, SkillForge first. Each rule and strategy
     * has its own server and simulated providers, so {@value #PARALLEL_RUNS} run at a time: a run waits
     * on loopback HTTP much of the time.
     */
    static List<Measurement> measure(List<ScriptedConversation> suite) throws Exception {
        ScriptedModel model = new ScriptedModel(suite);
        List<Future<Measurement>> started = new ArrayList<>();
        try (ExecutorService runs = Executors.newFixedThreadPool(PARALLEL_RUNS)) {
            for (RuleCase rule : RuleCase.ALL) {
                for (HistoryStrategy strategy : HistoryStrategy.ALL) {
                    started.add(runs.submit(() -> StrategyRun.run(rule, strategy, suite, model)));
                }
            }
            List<Measurement> measurements = new ArrayList<>();
            for (Future<Measurement> measurement : started) {
                measurements.add(measurement.get());
            }
            return measurements;
        }
    }

    /** The per-call lines ([Cache Debug], the baselines' cache breaks) would bury the table; the figures are all in it. */
    private static void quietLogs() {
        ((Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME)).setLevel(Level.WARN);
        ((Logger) LoggerFactory.getLogger("dev.skillforge.server.cache")).setLevel(Level.ERROR);
    }
}
