package dev.skillforge.bench.load;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.server.TemporaryFolders;
import dev.skillforge.server.json.Json;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code ./skillforge bench load}: SkillForge under load against a paced model on loopback.
 *
 * <p>A {@link PacedUpstream} runs in its own process; each server to compare runs in its own process
 * too ({@code java -cp JAR dev.skillforge.server.Main serve}, as the launcher runs it, its provider
 * the upstream), by default the jar just built; {@code --server NAME=JAR} (repeatable) compares builds
 * in one run. At each level of concurrency the same turns are made straight at the upstream first
 * (the floor), then through each server: half the conversations by id, half stateless. Printed and
 * written to {@code target/bench/load.json}: time to first text and per turn (p50/p99/max), what the
 * server adds to them, errors, the server process's CPU per turn and per relayed text chunk, its peak RSS,
 * and how long after its start it answered its first request.
 */
public final class LoadBench {

    private static final List<Level> DEFAULT_LEVELS = List.of(new Level(10, 20), new Level(100, 10), new Level(1000, 3));
    /** Text chunks a turn relays: two answers of {@value PacedUpstream#CHUNKS}. */
    private static final int CHUNKS_PER_TURN = 2 * PacedUpstream.CHUNKS;

    /**
     * The same agent loop written by others ({@link LangChain4jPeer}, {@link AiSdkPeer}), and a relay of the best class
     * passing the direct calls through ({@link NginxRelay}).
     */
    private static final List<String> PEERS = List.of("langchain4j", "ai-sdk", "nginx");
    /** The most connections a server takes from one address (all of the load is 127.0.0.1). */
    private static final int MAX_CONNECTIONS = 1000;
    /** Connections left free for the harness's own requests (metrics) while the heap is weighed. */
    private static final int HARNESS_CONNECTIONS = 10;

    record Level(int concurrency, int turns) {
    }

    private LoadBench() {
    }

    public static int run(List<String> args, Path out) throws Exception {
        List<Level> levels = DEFAULT_LEVELS;
        Map<String, Path> jars = new LinkedHashMap<>();
        String javaOptions = "";
        Map<String, String> serverOptions = new LinkedHashMap<>();
        List<String> peers = new ArrayList<>();
        Path jfr = null;
        Duration spread = Duration.ZERO;
        for (int i = 0; i < args.size(); i++) {
            switch (args.get(i)) {
                case "--levels" -> levels = parseLevels(args.get(++i));
                case "--server" -> {
                    String[] nameAndJar = args.get(++i).split("=", 2);
                    jars.put(nameAndJar[0], Path.of(nameAndJar[1]).toAbsolutePath());
                }
                case "--java-options" -> javaOptions = args.get(++i);
                case "--server-options" -> { // NAME='OPTIONS': JVM options for that server alone, after --java-options
                    String[] nameAndOptions = args.get(++i).split("=", 2);
                    serverOptions.put(nameAndOptions[0], nameAndOptions[1]);
                }
                case "--jfr" -> jfr = Path.of(args.get(++i)).toAbsolutePath();
                case "--spread" -> spread = Duration.ofMillis(Long.parseLong(args.get(++i))); // MS over which first turns start
                case "--peer" -> {
                    String peer = args.get(++i);
                    if (!PEERS.contains(peer)) {
                        System.err.println("unknown peer " + peer + "; the peers: " + String.join(", ", PEERS));
                        return 2;
                    }
                    peers.add(peer);
                }
                default -> {
                    System.err.println("unknown argument " + args.get(i) + "; usage: ./skillforge bench load "
                            + "[--levels 10x20,100x10,1000x3] [--server NAME=JAR]... [--java-options '-XX:…'] [--server-options NAME='-XX:…']... [--peer langchain4j|ai-sdk|nginx]... [--jfr DIR] [--spread MS]");
                    return 2;
                }
            }
        }
        if (jars.isEmpty()) {
            jars.put("skillforge", builtJar());
        }
        Files.createDirectories(out);
        List<Process> processes = new ArrayList<>();
        Path data = Files.createTempDirectory("skillforge-load");
        try {
            Process upstreamProcess = startUpstream(out, processes);
            int upstream = upstreamPort(upstreamProcess);
            Map<String, Server> servers = new LinkedHashMap<>();
            for (Map.Entry<String, Path> jar : jars.entrySet()) {
                servers.put(jar.getKey(), Server.start(jar.getKey(), jar.getValue(), upstream, data.resolve(jar.getKey()), out,
                        (javaOptions + " " + serverOptions.getOrDefault(jar.getKey(), "")).strip(), processes));
            }
            for (String peer : peers) {
                servers.put(peer, Server.startPeer(peer, upstream, out, processes));
            }
            System.out.printf(Locale.ROOT, "load average at start: %s%n", loadAverage());
            warmUp(upstream, servers);
            List<Server> jvms = servers.values().stream().filter(Server::jvm).toList(); // what jcmd reaches
            if (jfr != null) {
                Files.createDirectories(jfr);
                for (Server server : jvms) {
                    jcmd(server, "JFR.start", "name=load", "settings=profile", "jdk.CPUTimeSample#enabled=true", "jdk.CPUTimeSample#throttle=1ms", "filename=" + jfr.resolve("load-" + server.name() + ".jfr"));
                }
            }
            List<Map<String, LoadPhase.Result>> results = new ArrayList<>();
            for (Level level : levels) {
                Map<String, LoadPhase.Result> row = new LinkedHashMap<>();
                row.put("direct", LoadPhase.run(level.concurrency(), level.turns(), spread,
                        i -> new LoadConversation(LoadConversation.Mode.DIRECT, upstream, "direct-" + i), null));
                for (Map.Entry<String, Server> server : servers.entrySet()) {
                    // The compiler recompiles what a new level of concurrency profiles differently: once unmeasured first.
                    phase(server.getValue(), new Level(level.concurrency(), Math.max(1, level.turns() / 3)), spread, "settle" + level.concurrency());
                    row.put(server.getKey(), phase(server.getValue(), level, spread, "c" + level.concurrency()));
                }
                results.add(row);
                System.out.printf(Locale.ROOT, "level %d done; load average %s%n", level.concurrency(), loadAverage());
            }
            if (jfr != null) {
                for (Server server : jvms) {
                    jcmd(server, "JFR.stop", "name=load");
                }
            }
            int most = Math.min(MAX_CONNECTIONS - HARNESS_CONNECTIONS, levels.stream().mapToInt(Level::concurrency).max().orElse(100));
            Map<String, HeapPerRun> heap = new LinkedHashMap<>();
            for (Server server : jvms) {
                try {
                    heap.put(server.name(), heapPerRun(server, most, out));
                } catch (IOException e) {
                    System.out.println(server.name() + ": the heap was not measured: " + e.getMessage());
                }
            }
            return report(out, levels, spread, results, servers, heap);
        } finally {
            for (Process process : processes) {
                stop(process);
            }
            TemporaryFolders.delete(data);
        }
    }

    private static LoadPhase.Result phase(Server server, Level level, Duration spread, String name) throws InterruptedException {
        return LoadPhase.run(level.concurrency(), level.turns(), spread, i -> new LoadConversation(server.door().mode(i), server.port(),
                name + "-" + i), server.process().toHandle());
    }

    /**
     * The heap in use after a full collection, idle and while {@code runs} new conversations take a turn each
     * ({@code activeRuns}: the server's gauge when the collection ran; the conversations stay hot in memory after).
     */
    record HeapPerRun(long idleBytes, long activeBytes, int runs, long activeRuns) {

        /** What one run going on holds: the growth over the idle heap, over the runs going on when it was measured. */
        double kibPerActiveRun() {
            return (activeBytes - idleBytes) / 1024.0 / Math.max(1, activeRuns);
        }
    }

    /** SIGTERM, so that a server's shutdown hook runs (and a flight recording is written); killed after 30 s. */
    private static void stop(Process process) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }

    /**
     * Starts {@code runs} turns at once whose model holds its first text back {@value PacedUpstream#HOLD_MILLIS} ms
     * (the runs are open, their provider streams too), and once nine in ten of them are going on (the server's own
     * {@code skillforge_active_runs}, read before and after) has the server collect its heap fully and say what is
     * left in use: the difference to the idle heap, per run, is what an active run holds (its conversation included).
     */
    private static HeapPerRun heapPerRun(Server server, int runs, Path out) throws IOException, InterruptedException {
        long idle = heapAfterGc(server);
        Map<String, long[]> idleClasses = ClassHistogram.parse(jcmd(server, "GC.class_histogram"));
        Thread load = Thread.ofVirtual().start(() -> {
            try {
                LoadPhase.run(runs, 1, i -> new LoadConversation(server.door() == Door.AGENT ? LoadConversation.Mode.STATELESS
                        : LoadConversation.Mode.BY_ID, server.port(), "hold-" + i), null);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        long deadline = System.nanoTime() + Duration.ofMillis(PacedUpstream.HOLD_MILLIS - 1_000).toNanos();
        while (activeRuns(server) < runs * 9L / 10 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        long before = activeRuns(server);
        long active = heapAfterGc(server);
        Map<String, long[]> activeClasses = ClassHistogram.parse(jcmd(server, "GC.class_histogram"));
        long after = activeRuns(server);
        ClassHistogram.writeGrowth(idleClasses, activeClasses, Math.max(1, Math.min(before, after)),
                out.resolve("heap-per-run-" + server.name() + ".txt"));
        load.join();
        return new HeapPerRun(idle, active, runs, Math.min(before, after));
    }

    /** The heap in use after a full collection: the sum of what G1's heap or Serial's and Parallel's generations use. */
    private static long heapAfterGc(Server server) throws IOException, InterruptedException {
        jcmd(server, "GC.run");
        long used = 0;
        boolean found = false;
        for (String line : jcmd(server, "GC.heap_info").split("\n")) {
            if (line.contains("Metaspace") || line.contains("class space")) {
                break;
            }
            Matcher figure = Pattern.compile("(?:heap|generation|DefNew|Tenured|PSYoungGen|ParOldGen)\\s+total[^\\n]*?used (\\d+)K").matcher(line);
            if (figure.find()) {
                used += Long.parseLong(figure.group(1)) * 1024;
                found = true;
            }
        }
        if (!found) {
            throw new IOException("no heap figure from jcmd GC.heap_info");
        }
        return used;
    }

    /** The server's {@code skillforge_active_runs} gauge. */
    private static long activeRuns(Server server) throws IOException {
        try (Http1Connection connection = new Http1Connection(server.port())) {
            connection.get("/metrics");
            String line;
            long active = -1;
            while ((line = connection.nextLine()) != null) {
                if (line.startsWith("skillforge_active_runs ")) {
                    active = (long) Double.parseDouble(line.substring(line.indexOf(' ') + 1).strip());
                }
            }
            return active;
        }
    }

    /** A flight recording of what comes after the warm-up only: the steady state, without the compiler's start. */
    private static String jcmd(Server server, String... command) throws IOException, InterruptedException {
        List<String> line = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(server.process().pid())));
        line.addAll(List.of(command));
        Process jcmd = new ProcessBuilder(line).redirectErrorStream(true).start();
        String said = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (jcmd.waitFor() != 0) {
            throw new IOException("jcmd " + String.join(" ", command) + " failed: " + said);
        }
        return said;
    }

    /** Brings every JVM's compiler up to speed before anything is measured (its compilations cost more CPU than the turns). */
    private static void warmUp(int upstream, Map<String, Server> servers) throws InterruptedException {
        Level warmUp = new Level(100, 15);
        LoadPhase.run(warmUp.concurrency(), warmUp.turns(), i -> new LoadConversation(LoadConversation.Mode.DIRECT, upstream, "warm-" + i), null);
        for (Server server : servers.values()) {
            LoadPhase.Result result = phase(server, warmUp, Duration.ZERO, "warm");
            if (!result.errors().isEmpty()) {
                System.out.println("warm-up errors on " + server.name() + ": " + result.errors().size() + ", first: " + result.errors().getFirst());
            }
        }
    }

    private static Process startUpstream(Path out, List<Process> processes) throws IOException {
        Process process = new ProcessBuilder(java(), "-cp", System.getProperty("java.class.path"), PacedUpstream.class.getName())
                .redirectError(out.resolve("load-upstream.log").toFile()).start();
        processes.add(process);
        return process;
    }

    private static int upstreamPort(Process upstream) throws IOException {
        BufferedReader lines = new BufferedReader(new InputStreamReader(upstream.getInputStream(), StandardCharsets.UTF_8));
        String line = lines.readLine();
        if (line == null || !line.startsWith("port ")) {
            throw new IOException("the paced upstream did not start: " + line);
        }
        return Integer.parseInt(line.substring(5));
    }

    /** How the load reaches a server under test. */
    enum Door {
        /** SkillForge: half the conversations by id, half stateless. */
        CONVERSATIONS,
        /** An agent peer: it has no conversations by id, every conversation is sent whole ({@code /api/agent}). */
        AGENT,
        /** A relay: the direct calls, through it. */
        RELAY;

        LoadConversation.Mode mode(int conversation) {
            return switch (this) {
                case CONVERSATIONS -> conversation % 2 == 0 ? LoadConversation.Mode.BY_ID : LoadConversation.Mode.STATELESS;
                case AGENT -> LoadConversation.Mode.STATELESS;
                case RELAY -> LoadConversation.Mode.DIRECT;
            };
        }
    }

    /**
     * A server under test: its process and port, and how long it took to answer its first request.
     *
     * @param jvm a Java process, which {@code jcmd} reaches (for a flight recording and its heap)
     */
    record Server(String name, Process process, int port, Duration firstAnswer, Door door, boolean jvm) {

        /** Starts of each server to measure its first answer by: the median is reported. */
        static final int STARTS = 5;

        /**
         * A peer on the same upstream: {@link LangChain4jPeer} in its own JVM with the default options,
         * {@link AiSdkPeer} in its own Node, or {@link NginxRelay}.
         */
        static Server startPeer(String name, int upstream, Path out, List<Process> processes) throws IOException, InterruptedException {
            if (name.equals("nginx")) {
                int port = freePort();
                ProcessBuilder relay = NginxRelay.process(out.resolve("nginx"), port, upstream)
                        .redirectErrorStream(true).redirectOutput(out.resolve("load-peer-nginx.log").toFile());
                Started started = startMeasured("peer nginx", trial -> {
                    long start = System.nanoTime();
                    Process process = relay.start();
                    processes.add(process);
                    return new Started(process, port, awaitHealthy(process, port, start));
                });
                return new Server(name, started.process(), port, started.firstAnswer(), Door.RELAY, false);
            }
            ProcessBuilder builder = (name.equals("ai-sdk") ? AiSdkPeer.process(upstream)
                    : new ProcessBuilder(java(), "-cp", System.getProperty("java.class.path"), LangChain4jPeer.class.getName(),
                    "0", "http://127.0.0.1:" + upstream + "/v1")).redirectError(out.resolve("load-peer-" + name + ".log").toFile());
            Started started = startMeasured("peer " + name, trial -> {
                long start = System.nanoTime();
                Process process = builder.start();
                processes.add(process);
                int port = upstreamPort(process);
                return new Started(process, port, awaitHealthy(process, port, start));
            });
            return new Server(name, started.process(), started.port(), started.firstAnswer(), Door.AGENT, !name.equals("ai-sdk"));
        }

        static Server start(String name, Path jar, int upstream, Path dataDir, Path out, String javaOptions, List<Process> processes)
                throws IOException, InterruptedException {
            int port = freePort();
            List<String> command = new ArrayList<>(List.of(java()));
            command.addAll(serverJvmOptions());
            Path aot = jar.resolveSibling("skillforge.aot");
            if (Files.isRegularFile(aot) && Files.getLastModifiedTime(aot).compareTo(Files.getLastModifiedTime(jar)) >= 0) {
                command.add("-XX:AOTCache=" + aot); // as the launcher starts it, when this build has its start-up cache
            }
            if (!javaOptions.isBlank()) {
                command.addAll(Arrays.asList(javaOptions.strip().split("\\s+")));
            }
            command.addAll(List.of("-cp", jar.toString(), "dev.skillforge.server.Main", "serve"));
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(out.resolve("load-server-" + name + ".log").toFile());
            Map<String, String> env = builder.environment();
            env.keySet().removeIf(key -> key.startsWith("FORGE_"));
            env.put("LC_ALL", "C.UTF-8");
            env.put("FORGE_PORT", Integer.toString(port));
            env.put("FORGE_PROVIDER", "openai");
            env.put("FORGE_BASE_URL", "http://127.0.0.1:" + upstream + "/v1");
            env.put("FORGE_API_KEY", "sk-load-bench-not-a-real-key");
            env.put("FORGE_MODEL", "paced-1");
            env.put("FORGE_MAX_CONNECTIONS_PER_CLIENT", Integer.toString(MAX_CONNECTIONS)); // every load client is 127.0.0.1
            Started started = startMeasured("server " + name + " (" + jar + ")", trial -> {
                // Each start on a new data folder, as a first start is: the database is created and migrated.
                env.put("FORGE_DATA_DIR", (trial == STARTS ? dataDir : dataDir.resolveSibling(dataDir.getFileName() + "-start-" + trial)).toString());
                long start = System.nanoTime();
                Process process = builder.start();
                processes.add(process);
                return new Started(process, port, awaitHealthy(process, port, start));
            });
            return new Server(name, started.process(), started.port(), started.firstAnswer(), Door.CONVERSATIONS, true);
        }

        /** A process started and answering, and how long after its start it first answered. */
        private record Started(Process process, int port, Duration firstAnswer) {
        }

        /** One start of a server, the {@code trial}-th of {@link #STARTS}. */
        private interface Launch {
            Started start(int trial) throws IOException, InterruptedException;
        }

        /**
         * Starts a server {@value #STARTS} times, stopping each but the last, and keeps the last with the median time to
         * its first answer: one start's figure varies by a fifth on this machine.
         */
        private static Started startMeasured(String label, Launch launch) throws IOException, InterruptedException {
            List<Duration> answers = new ArrayList<>();
            for (int trial = 1; ; trial++) {
                Started started = launch.start(trial);
                answers.add(started.firstAnswer());
                if (trial == STARTS) {
                    answers.sort(null);
                    System.out.printf(Locale.ROOT, "%s (pid %d): first request answered %.0f ms after the process started "
                                    + "(median of %d starts, %.0f–%.0f)%n", label, started.process().pid(),
                            answers.get(STARTS / 2).toNanos() / 1e6, STARTS, answers.getFirst().toNanos() / 1e6,
                            answers.getLast().toNanos() / 1e6);
                    return new Started(started.process(), started.port(), answers.get(STARTS / 2));
                }
                stop(started.process());
            }
        }

        private static Duration awaitHealthy(Process process, int port, long start) throws InterruptedException, IOException {
            long deadline = start + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline) {
                if (!process.isAlive()) {
                    throw new IOException("the server exited with " + process.exitValue() + " before answering");
                }
                try (Http1Connection connection = new Http1Connection(port)) {
                    int status = connection.get("/healthz");
                    if (status == 200) {
                        return Duration.ofNanos(System.nanoTime() - start);
                    }
                } catch (IOException notYet) {
                    Thread.sleep(5);
                }
            }
            throw new IOException("the server did not answer /healthz within 60 s");
        }
    }

    private static int report(Path out, List<Level> levels, Duration spread, List<Map<String, LoadPhase.Result>> results, Map<String, Server> servers,
                              Map<String, HeapPerRun> heap) throws IOException {
        List<String> columns = new ArrayList<>(results.getFirst().keySet());
        System.out.println();
        System.out.println("Load: paced upstream (first text after " + PacedUpstream.FIRST_TOKEN_MILLIS + " ms, " + PacedUpstream.CHUNKS
                + " chunks " + PacedUpstream.CHUNK_GAP_MILLIS + " ms apart), 2 model calls and one `skill list` per turn; "
                + (spread.isZero() ? "every conversation's first turn at once; " : "first turns spread over " + spread.toMillis() + " ms; ")
                + Runtime.getRuntime().availableProcessors() + " cores; load average now " + loadAverage());
        System.out.println("| concurrent × turns | figure | " + String.join(" | ", columns) + " |");
        System.out.println("|---|---|" + "---:|".repeat(columns.size()));
        ObjectNode json = Json.object().put("benchmark", "load").put("cores", Runtime.getRuntime().availableProcessors())
                .put("spreadMs", spread.toMillis());
        ObjectNode startup = json.putObject("firstAnswerMs");
        servers.forEach((name, server) -> startup.put(name, server.firstAnswer().toNanos() / 1e6));
        ArrayNode levelsJson = json.putArray("levels");
        for (int l = 0; l < levels.size(); l++) {
            Level level = levels.get(l);
            Map<String, LoadPhase.Result> row = results.get(l);
            LoadPhase.Result direct = row.get("direct");
            String label = level.concurrency() + " × " + level.turns();
            line(label, "first text p50 / p99 / max ms", columns, row, r -> triple(r.firstTextMillis()));
            line(label, "added first text p50 / p99 ms", columns, row, r -> r == direct ? "—" : String.format(Locale.ROOT, "%.1f / %.1f",
                    percentile(r.firstTextMillis(), 50) - percentile(direct.firstTextMillis(), 50),
                    percentile(r.firstTextMillis(), 99) - percentile(direct.firstTextMillis(), 99)));
            line(label, "turn p50 / p99 / max ms", columns, row, r -> triple(r.turnMillis()));
            line(label, "errors", columns, row, r -> Integer.toString(r.errors().size()));
            line(label, "server CPU per turn ms", columns, row, r -> r == direct ? "—" : String.format(Locale.ROOT, "%.2f", r.cpuMillisPerTurn()));
            line(label, "server CPU per turn, idle subtracted, ms", columns, row, r -> r == direct ? "—"
                    : String.format(Locale.ROOT, "%.2f", r.marginalCpuMillisPerTurn()));
            line(label, "server CPU per turn without the JIT compiler's threads, ms", columns, row, r -> r == direct ? "—"
                    : String.format(Locale.ROOT, "%.2f", r.cpuMillisPerTurnWithoutCompiler()));
            line(label, "server CPU per text chunk µs", columns, row, r -> r == direct ? "—"
                    : String.format(Locale.ROOT, "%.0f", r.cpuMillisPerTurn() * 1000 / CHUNKS_PER_TURN));
            line(label, "server peak RSS MB", columns, row, r -> r == direct ? "—" : String.format(Locale.ROOT, "%.0f", r.peakRssBytes() / 1e6));
            ObjectNode levelJson = levelsJson.addObject().put("concurrency", level.concurrency()).put("turnsEach", level.turns());
            row.forEach((name, r) -> levelJson.set(name, json(r)));
        }
        servers.forEach((name, server) -> System.out.printf(Locale.ROOT, "%s: first request answered %.0f ms after its process started (median of %d starts)%n",
                name, server.firstAnswer().toNanos() / 1e6, Server.STARTS));
        ObjectNode heapJson = json.putObject("heapAfterFullGc");
        heap.forEach((name, h) -> {
            if (h.activeRuns() <= 0) {
                System.out.println(name + ": heap per active run not measured (" + (h.activeRuns() < 0
                        ? "it has no active-runs gauge to wait for)" : "no run was going on when the heap was collected)"));
                return;
            }
            System.out.printf(Locale.ROOT, "%s: heap in use after a full GC %.1f MB idle, %.1f MB with %d new conversations"
                            + " taking a turn (%d runs going on when it ran): %.1f KB per active run%n",
                    name, h.idleBytes() / 1e6, h.activeBytes() / 1e6, h.runs(), h.activeRuns(), h.kibPerActiveRun());
            heapJson.putObject(name).put("idleBytes", h.idleBytes()).put("activeBytes", h.activeBytes()).put("conversations", h.runs())
                    .put("activeRuns", h.activeRuns()).put("kibPerActiveRun", h.kibPerActiveRun());
        });
        results.forEach(row -> row.forEach((name, r) -> {
            if (!r.cpuMillisByThreads().isEmpty()) {
                StringBuilder where = new StringBuilder();
                r.cpuMillisByThreads().entrySet().stream().limit(8).forEach(e -> where.append(String.format(Locale.ROOT, "  %s %.2f",
                        e.getKey(), e.getValue() / Math.max(1, r.turns().size()))));
                System.out.println("CPU ms per turn by thread (" + name + ", " + r.concurrency() + "):" + where);
            }
        }));
        results.forEach(row -> row.forEach((name, r) -> r.errors().stream().limit(3)
                .forEach(error -> System.out.println("error (" + name + ", " + r.concurrency() + "): " + error))));
        Path file = out.resolve("load.json");
        Files.writeString(file, Json.write(json) + "\n");
        System.out.println("written: " + file.toAbsolutePath());
        return results.stream().allMatch(row -> row.values().stream().allMatch(r -> r.errors().isEmpty())) ? 0 : 1;
    }

    private static void line(String level, String figure, List<String> columns, Map<String, LoadPhase.Result> row,
                             java.util.function.Function<LoadPhase.Result, String> cell) {
        StringBuilder text = new StringBuilder("| " + level + " | " + figure + " |");
        for (String column : columns) {
            text.append(' ').append(cell.apply(row.get(column))).append(" |");
        }
        System.out.println(text);
    }

    private static String triple(double[] values) {
        return values.length == 0 ? "—" : String.format(Locale.ROOT, "%.1f / %.1f / %.0f",
                percentile(values, 50), percentile(values, 99), percentile(values, 100));
    }

    private static ObjectNode json(LoadPhase.Result r) {
        ObjectNode node = Json.object().put("turns", r.turns().size()).put("errors", r.errors().size())
                .put("wallMs", r.wall().toMillis()).put("serverCpuMs", r.serverCpu().toMillis())
                .put("cpuMsPerTurn", r.cpuMillisPerTurn()).put("cpuMsPerTurnWithoutCompiler", r.cpuMillisPerTurnWithoutCompiler())
                .put("idleCpuMs", r.idleCpu().toMillis())
                .putPOJO("cpuMsByThreads", r.cpuMillisByThreads()).put("cpuMsPerTurnIdleSubtracted", r.marginalCpuMillisPerTurn()).put("peakRssBytes", r.peakRssBytes());
        double[] first = r.firstTextMillis();
        double[] turn = r.turnMillis();
        node.putObject("firstTextMs").put("p50", percentile(first, 50)).put("p99", percentile(first, 99)).put("max", percentile(first, 100));
        node.putObject("turnMs").put("p50", percentile(turn, 50)).put("p99", percentile(turn, 99)).put("max", percentile(turn, 100));
        return node;
    }

    static double percentile(double[] values, double p) {
        if (values.length == 0) {
            return Double.NaN;
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    private static List<Level> parseLevels(String text) {
        return Arrays.stream(text.split(",")).map(level -> {
            String[] parts = level.strip().split("x");
            return new Level(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
        }).toList();
    }

    /** The server jar on this JVM's class path: the one {@code ./skillforge} just built. */
    private static Path builtJar() {
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> entry.endsWith("skillforge.jar")).map(Path::of).findFirst()
                .orElseThrow(() -> new IllegalStateException("no skillforge.jar on the class path: pass --server NAME=JAR"));
    }

    /** The options of skillforge-server/jvm.options, which the launcher starts the server with. */
    private static List<String> serverJvmOptions() throws IOException {
        Path file = Path.of(System.getProperty("bench.out", "target/bench")).toAbsolutePath().getParent().getParent()
                .resolve("skillforge-server").resolve("jvm.options");
        if (!Files.isRegularFile(file)) {
            return List.of("--enable-native-access=ALL-UNNAMED");
        }
        return Files.readAllLines(file).stream().map(String::strip).filter(line -> !line.isEmpty() && !line.startsWith("#")).toList();
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).strip();
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
