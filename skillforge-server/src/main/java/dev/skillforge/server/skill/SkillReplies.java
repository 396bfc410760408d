package dev.skillforge.server.skill;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;

/** What {@code skill files} and {@code skill history} answer the model: one line per file, one line per version. */
final class SkillReplies {

    private static final DateTimeFormatter WHEN = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'").withZone(ZoneOffset.UTC);

    private SkillReplies() {
    }

    /** The files of a version, with their sizes. */
    static String files(SkillVersion version) {
        String files = version.files().stream().map(f -> "- " + f.path() + " (" + f.size() + " bytes)").collect(Collectors.joining("\n"));
        return "Skill " + version.name() + (version.team() ? " (team library)" : "") + ", version " + version.version() + ", "
                + version.files().size() + (version.files().size() == 1 ? " file" : " files") + ":\n" + files;
    }

    /** Every version, newest first: number, time, source, and the files it added, changed or removed. */
    static String history(List<SkillVersion> versions) {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < versions.size(); i++) {
            SkillVersion version = versions.get(i);
            SkillVersion before = i + 1 < versions.size() ? versions.get(i + 1) : null;
            lines.add("- version " + version.version() + ", " + WHEN.format(Instant.ofEpochMilli(version.createdAt())) + ", "
                    + source(version.source()) + ": " + change(before, version));
        }
        SkillVersion newest = versions.getFirst();
        return "Skill " + newest.name() + (newest.team() ? " (team library)" : "") + ", " + versions.size()
                + (versions.size() == 1 ? " version" : " versions") + (newest.deleted() ? " (deleted now)" : "") + ", newest first:\n"
                + String.join("\n", lines);
    }

    private static String source(VersionSource source) {
        String door = switch (source.door()) {
            case MODEL -> "by the model" + (source.conversationId() == null ? "" : " in conversation " + source.conversationId());
            case API -> "on the page or the API";
            case MCP -> "by an MCP client";
            case IMPORT -> "imported from a zip";
            case DISK -> "from the skills folder of an earlier SkillForge";
        };
        return source.restoredFrom() == null ? door : door + ", restoring version " + source.restoredFrom();
    }

    /** What changed from {@code before} to {@code after}, in file paths. */
    private static String change(SkillVersion before, SkillVersion after) {
        if (after.deleted()) {
            return "deleted the skill";
        }
        if (before == null || before.deleted()) {
            return (before == null ? "created with " : "brought back with ") + after.files().stream().map(f -> f.path().value())
                    .collect(Collectors.joining(", "));
        }
        Map<SkillPath, String> old = before.files().stream().collect(Collectors.toMap(SkillFileInfo::path, SkillFileInfo::sha256));
        Map<SkillPath, String> now = after.files().stream().collect(Collectors.toMap(SkillFileInfo::path, SkillFileInfo::sha256));
        Set<SkillPath> paths = new TreeSet<>(old.keySet());
        paths.addAll(now.keySet());
        List<String> changes = new ArrayList<>();
        Function<SkillPath, String> verb = path -> !old.containsKey(path) ? "added " : !now.containsKey(path) ? "removed "
                : old.get(path).equals(now.get(path)) ? null : "changed ";
        for (SkillPath path : paths) {
            String what = verb.apply(path);
            if (what != null) {
                changes.add(what + path);
            }
        }
        return changes.isEmpty() ? "no file changed" : String.join(", ", changes);
    }
}
