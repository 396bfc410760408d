package dev.skillforge.bench;

import dev.skillforge.bench.cache.CacheBench;

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
            case "cache" -> System.exit(CacheBench.run(Arrays.asList(args).subList(1, args.length), out));
            default -> {
                System.err.println("""
                        usage: ./skillforge bench hot-turn [TURNS]
                               ./skillforge bench cache [--quick] [--out FILE]
                          hot-turn  time to first event of a turn on a hot conversation, with and without
                                    100 ms of latency injected into every database call (issue 3)
                          cache     cached tokens against what each provider cache rule allows, SkillForge and
                                    the seeds' history strategies, through the server (issue 6); exit 1 when
                                    SkillForge misses 100% (90% on the conversation longer than its window)""");
                System.exit(name.equals("help") ? 0 : 2);
            }
        }
    }
}
