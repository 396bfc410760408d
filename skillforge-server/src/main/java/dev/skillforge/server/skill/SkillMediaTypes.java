package dev.skillforge.server.skill;

import java.util.Locale;
import java.util.Map;

/**
 * What kind of file a skill's file is, by its name, for MCP clients and the page's preview. It only
 * informs: the HTTP door serves every file as a download, never as something a browser renders.
 */
public final class SkillMediaTypes {

    private static final Map<String, String> BY_EXTENSION = Map.ofEntries(
            Map.entry("md", "text/markdown"), Map.entry("markdown", "text/markdown"), Map.entry("txt", "text/plain"),
            Map.entry("py", "text/x-python"), Map.entry("sh", "text/x-shellscript"), Map.entry("js", "text/javascript"),
            Map.entry("ts", "text/x-typescript"), Map.entry("json", "application/json"), Map.entry("yaml", "application/yaml"),
            Map.entry("yml", "application/yaml"), Map.entry("csv", "text/csv"), Map.entry("html", "text/html"),
            Map.entry("xml", "application/xml"), Map.entry("png", "image/png"), Map.entry("jpg", "image/jpeg"),
            Map.entry("jpeg", "image/jpeg"), Map.entry("gif", "image/gif"), Map.entry("svg", "image/svg+xml"),
            Map.entry("pdf", "application/pdf"), Map.entry("zip", "application/zip"));

    private SkillMediaTypes() {
    }

    /** The media type a file of this name most likely has; {@code application/octet-stream} when unknown. */
    public static String of(SkillPath path) {
        String name = path.value().substring(path.value().lastIndexOf('/') + 1);
        int dot = name.lastIndexOf('.');
        String extension = dot < 0 ? "" : name.substring(dot + 1).toLowerCase(Locale.ROOT);
        return BY_EXTENSION.getOrDefault(extension, "application/octet-stream");
    }
}
