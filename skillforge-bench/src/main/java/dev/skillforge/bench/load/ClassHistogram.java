package dev.skillforge.bench.load;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the heap holds by class ({@code jcmd PID GC.class_histogram}, live objects after a full collection), and what
 * grew between two histograms per active run: where the heap per active run goes.
 */
final class ClassHistogram {

    /** {@code   1:   12345   678900  java.lang.String (java.base@25)}: rank, instances, bytes, class. */
    private static final Pattern ROW = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)");

    private ClassHistogram() {
    }

    /** Instances and bytes by class name. */
    static Map<String, long[]> parse(String histogram) {
        Map<String, long[]> classes = new HashMap<>();
        for (String line : histogram.split("\n")) {
            Matcher row = ROW.matcher(line);
            if (row.find()) {
                classes.put(row.group(3), new long[]{Long.parseLong(row.group(1)), Long.parseLong(row.group(2))});
            }
        }
        return classes;
    }

    /** Writes the classes that grew most from {@code idle} to {@code active}, per run, largest first, to {@code file}. */
    static void writeGrowth(Map<String, long[]> idle, Map<String, long[]> active, long runs, Path file) throws IOException {
        List<Map.Entry<String, long[]>> grown = new ArrayList<>();
        long total = 0;
        for (Map.Entry<String, long[]> entry : active.entrySet()) {
            long[] before = idle.getOrDefault(entry.getKey(), new long[2]);
            long[] growth = {entry.getValue()[0] - before[0], entry.getValue()[1] - before[1]};
            total += growth[1];
            grown.add(Map.entry(entry.getKey(), growth));
        }
        grown.sort((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]));
        StringBuilder text = new StringBuilder(String.format(Locale.ROOT,
                "Live heap growth per active run (%d runs), by class: %.1f KiB in all%n%12s %12s  %s%n",
                runs, total / 1024.0 / runs, "bytes/run", "objects/run", "class"));
        for (Map.Entry<String, long[]> entry : grown.subList(0, Math.min(60, grown.size()))) {
            text.append(String.format(Locale.ROOT, "%12.0f %12.1f  %s%n", (double) entry.getValue()[1] / runs,
                    (double) entry.getValue()[0] / runs, entry.getKey()));
        }
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }
}
