package dev.skillforge.bench.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The CPU a process's threads used, grouped by name with numbers blurred ({@code ForkJoinPool-1-worker-#}),
 * read from {@code /proc/PID/task/TID/stat} (utime + stime, in clock ticks of 10 ms): where a step's CPU went,
 * by kind of thread. Threads that ended between two snapshots are not in the difference.
 */
final class ThreadCpu {

    private static final double MILLIS_PER_TICK = 10;

    private ThreadCpu() {
    }

    /** Ticks per thread id, with the thread's blurred name. */
    record Snapshot(Map<String, Long> ticksByThread, Map<String, String> groupByThread) {
    }

    static Snapshot take(ProcessHandle process) {
        Map<String, Long> ticks = new HashMap<>();
        Map<String, String> groups = new HashMap<>();
        Path tasks = Path.of("/proc", Long.toString(process.pid()), "task");
        try (Stream<Path> threads = Files.list(tasks)) {
            threads.forEach(task -> {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    int open = stat.indexOf('(');
                    int close = stat.lastIndexOf(')');
                    String[] fields = stat.substring(close + 2).split(" ");
                    // After "(comm) ": state is field 3; utime and stime are fields 14 and 15 (1-based).
                    ticks.put(task.getFileName().toString(), Long.parseLong(fields[11]) + Long.parseLong(fields[12]));
                    groups.put(task.getFileName().toString(), stat.substring(open + 1, close).replaceAll("\\d+", "#"));
                } catch (IOException | RuntimeException gone) {
                    // the thread ended while being read
                }
            });
        } catch (IOException e) {
            return new Snapshot(Map.of(), Map.of());
        }
        return new Snapshot(ticks, groups);
    }

    /** Milliseconds of CPU per group of threads between two snapshots, most first. */
    static Map<String, Double> between(Snapshot before, Snapshot after) {
        Map<String, Double> byGroup = new HashMap<>();
        after.ticksByThread().forEach((thread, ticks) -> {
            long used = ticks - before.ticksByThread().getOrDefault(thread, 0L);
            if (used > 0) {
                byGroup.merge(after.groupByThread().get(thread), used * MILLIS_PER_TICK, Double::sum);
            }
        });
        Map<String, Double> sorted = new LinkedHashMap<>();
        byGroup.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .forEach(entry -> sorted.put(entry.getKey(), entry.getValue()));
        return sorted;
    }
}
