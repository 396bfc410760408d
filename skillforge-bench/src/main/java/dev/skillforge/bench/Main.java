package dev.skillforge.bench;

import dev.skillforge.bench.cache.CacheBench;
import dev.skillforge.bench.load.LoadBench;

import java.nio.file.Path;
import java.util.Arrays;

/** {@code ./skillforge bench NAME}: runs one benchmark, prints its table and writes its JSON under {@code target/bench/}. */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) throws Exception {
        String name = args.length == 0 ? "help" : args[0];
        Path out = Path.of(System.getProperty("bench.out", "target/bench"));
        switch (name) {
            case "hot-turn" -> HotTurnLatencyBench.run(out, args.length > 1 ? Integer.parseInt(args[1]) : 300);
            case "hot-turn-tracing" -> TracingOverheadBench.run(out, args.length > 1 ? Integer.parseInt(args[1]) : 300);
            case "cache" -> System.exit(CacheBench.run(Arrays.asList(args).subList(1, args.length), out));
            case "sandbox" -> SandboxOverheadBench.run(out, args.length > 1 ? Integer.parseInt(args[1]) : 300);
            case "demo-memory" -> DemoMemoryBench.run(out, args.length > 1 ? Integer.parseInt(args[1]) : 10_000);
            case "documents" -> HostileDocumentsBench.run(out, args.length > 1 ? Integer.parseInt(args[1]) : 5);
            case "load" -> System.exit(LoadBench.run(Arrays.asList(args).subList(1, args.length), out));
            case "jmh" -> org.openjdk.jmh.Main.main(Arrays.copyOfRange(args, 1, args.length));
            default -> {
                System.err.println("""
                        usage: ./skillforge bench hot-turn [TURNS]
                               ./skillforge bench hot-turn-tracing [TURNS]
                               ./skillforge bench cache [--quick] [--out FILE]
                               ./skillforge bench sandbox [RUNS]
                               ./skillforge bench demo-memory [TURNS]
                               ./skillforge bench documents [RUNS]
                               ./skillforge bench load [--levels 10x20,100x10,1000x3] [--server NAME=JAR]... [--java-options OPTS] [--server-options NAME=OPTS]... [--jfr DIR]
                               ./skillforge bench jmh [JMH ARGS, e.g. -prof gc Chunk]
                          hot-turn  time to first event of a turn on a hot conversation, with and without
                                    100 ms of latency injected into every database call
                          hot-turn-tracing  the same turns with tracing off and on (exporting over OTLP/HTTP to a
                                    loopback sink): what tracing costs a turn
                          cache     cached tokens against what each provider cache rule allows, SkillForge and
                                    the seeds' history strategies, through the server; exit 1 when
                                    SkillForge misses 100% (90% on the conversation longer than its window)
                          sandbox   the time 'true' takes through the process runner in bubblewrap and without a
                                    sandbox, interleaved: the sandbox's overhead per command
                          demo-memory the heap the offline demo holds after full collections over many stateless
                                    turns: flat when it keeps nothing per turn
                          documents the hostile documents of the tests (forms drawn within forms, decompression bombs
                                    behind any filter, floods of operands, names, quotes, elements) and an honest 300-page
                                    PDF, read as uploads: how long each takes to be refused or read
                          load      concurrent turns through the server against a paced upstream in its own process,
                                    beside the same calls straight at the upstream: time to first text, server CPU per
                                    turn, RSS, errors; --server compares builds in one run
                          jmh       the per-chunk path in JMH: the OpenAI chunk parser (and the tree it built
                                    before), the <shell> tag scanner, the event encoder (and before)""");
                System.exit(name.equals("help") ? 0 : 2);
            }
        }
    }
}
