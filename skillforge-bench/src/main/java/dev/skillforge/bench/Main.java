package dev.skillforge.bench;

import java.nio.file.Path;

/** {@code ./skillforge bench NAME}: runs one benchmark, prints its table and writes its JSON under {@code target/bench/}. */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) throws Exception {
        String name = args.length == 0 ? "help" : args[0];
        Path out = Path.of(System.getProperty("bench.out", "target/bench"));
        switch (name) {
            case "hot-turn" -> HotTurnLatencyBench.run(out, args.length > 1 ? Integer.parseInt(args[1]) : 300);
            default -> {
                System.err.println("""
                        usage: ./skillforge bench hot-turn [TURNS]
                          hot-turn  time to first event of a turn on a hot conversation, with and without
                                    100 ms of latency injected into every database call (issue 3)""");
                System.exit(name.equals("help") ? 0 : 2);
            }
        }
    }
}
