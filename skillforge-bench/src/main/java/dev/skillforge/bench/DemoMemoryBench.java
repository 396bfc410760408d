package dev.skillforge.bench;

import dev.skillforge.server.TemporaryFolders;
import dev.skillforge.server.json.Json;
import dev.skillforge.testkit.DemoMemory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code ./skillforge bench demo-memory [TURNS]}: the heap the offline demo holds after full collections,
 * sampled every tenth of TURNS (10,000 by default) stateless demo turns through a real server. Flat means
 * the demo keeps nothing per turn (it once kept every request it was sent).
 */
final class DemoMemoryBench {

    private DemoMemoryBench() {
    }

    static void run(Path out, int turns) throws Exception {
        Path data = Files.createTempDirectory("skillforge-demo-memory");
        List<DemoMemory.Sample> samples;
        try {
            samples = DemoMemory.run(data, turns, Math.max(1, turns / 10));
        } finally {
            TemporaryFolders.delete(data);
        }
        long first = samples.getFirst().heapBytes();
        System.out.println("Heap in use after full collections, over " + turns + " stateless demo turns through the server");
        System.out.println("| turns | heap MiB | since the start MiB |");
        System.out.println("|------:|---------:|--------------------:|");
        for (DemoMemory.Sample sample : samples) {
            System.out.printf("| %d | %.1f | %+.1f |%n", sample.turns(), mib(sample.heapBytes()), mib(sample.heapBytes() - first));
        }
        long last = samples.getLast().heapBytes();
        System.out.printf("growth per 1,000 turns: %.2f MiB%n", mib(last - first) * 1000.0 / turns);
        Files.createDirectories(out);
        var json = Json.object().put("turns", turns).put("growthBytes", last - first);
        var list = json.putArray("samples");
        samples.forEach(sample -> list.addObject().put("turns", sample.turns()).put("heapBytes", sample.heapBytes()));
        Files.writeString(out.resolve("demo-memory.json"), Json.write(json));
    }

    private static double mib(long bytes) {
        return bytes / (1024.0 * 1024.0);
    }
}
