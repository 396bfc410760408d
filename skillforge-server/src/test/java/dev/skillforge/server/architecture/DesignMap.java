package dev.skillforge.server.architecture;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the package map of docs/design.md: in its block of server packages, a line that starts with two spaces
 * and {@code .name} opens a package, the lines indented further continue it, and what follows {@code ->} (to the
 * entry's end) names, comma-separated, the packages it uses ({@code core} is skillforge-core).
 */
final class DesignMap {

    private static final String START = "dev.skillforge.server ";
    private static final Pattern ENTRY = Pattern.compile("^  \\.([a-z.]+)\\s");

    private DesignMap() {
    }

    static Map<String, Set<String>> read(String design) {
        int start = design.indexOf("\n" + START);
        if (start < 0) {
            throw new IllegalStateException("docs/design.md has no block starting with '" + START + "'");
        }
        String block = design.substring(start + 1, design.indexOf("\n```", start));
        Map<String, Set<String>> map = new TreeMap<>();
        String current = null;
        boolean listing = false; // after the entry's arrow, its following lines go on with the list
        for (String line : block.lines().toList()) {
            Matcher entry = ENTRY.matcher(line);
            if (entry.find()) {
                current = entry.group(1);
                map.put(current, new TreeSet<>());
                listing = false;
            }
            int arrow = line.indexOf("->");
            if (current != null && (arrow >= 0 || listing)) {
                listing = true;
                for (String used : line.substring(arrow >= 0 ? arrow + 2 : 0).split(",")) {
                    if (!used.isBlank()) {
                        map.get(current).add(used.strip());
                    }
                }
            }
        }
        return map;
    }

    /** The map's name of a package: the longest listed one it is in, relative to dev.skillforge.server. */
    static String name(String javaPackage, Set<String> listed) {
        String relative = javaPackage.replaceFirst("^dev\\.skillforge\\.server\\.?", "");
        String best = relative;
        int bestLength = -1;
        for (String candidate : listed) {
            boolean inside = relative.equals(candidate) || relative.startsWith(candidate + ".");
            if (inside && candidate.length() > bestLength) {
                best = candidate;
                bestLength = candidate.length();
            }
        }
        return best;
    }
}
