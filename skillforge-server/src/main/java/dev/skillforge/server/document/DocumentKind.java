package dev.skillforge.server.document;

import java.util.Locale;
import java.util.Set;

/** How a file's text is read: PDFBox, jsoup, or as text. The declared type decides, else the name's extension. */
enum DocumentKind {
    PDF("application/pdf"),
    HTML("text/html"),
    TEXT("text/plain");

    /** The media type stored when the client declared none (or only {@code application/octet-stream}). */
    final String defaultType;

    DocumentKind(String defaultType) {
        this.defaultType = defaultType;
    }

    private static final Set<String> TEXT_TYPES = Set.of("application/json", "application/xml", "application/yaml",
            "application/x-yaml", "application/toml", "application/javascript", "application/x-sh", "application/sql",
            "application/x-python", "application/typescript", "application/ld+json");
    private static final Set<String> TEXT_EXTENSIONS = Set.of("txt", "text", "md", "markdown", "rst", "adoc", "org", "csv", "tsv",
            "json", "jsonl", "yaml", "yml", "toml", "ini", "cfg", "conf", "properties", "xml", "svg", "log", "tex",
            "java", "kt", "kts", "scala", "groovy", "gradle", "py", "rb", "js", "mjs", "cjs", "ts", "tsx", "jsx", "go", "rs", "c",
            "h", "cc", "cpp", "hpp", "cs", "swift", "m", "php", "pl", "lua", "r", "sh", "bash", "zsh", "fish", "ps1", "sql",
            "css", "scss", "less", "vue", "svelte", "dart", "ex", "exs", "erl", "hs", "ml", "clj", "el", "vim", "dockerfile",
            "makefile", "mk", "cmake", "bat", "diff", "patch", "srt", "vtt");

    /** The media type without parameters, lowercase. */
    static String baseType(String mediaType) {
        int semicolon = mediaType.indexOf(';');
        return (semicolon < 0 ? mediaType : mediaType.substring(0, semicolon)).strip().toLowerCase(Locale.ROOT);
    }

    /**
     * @throws DocumentException UNSUPPORTED for a type (or, without one, an extension) that is not a document SkillForge reads
     */
    static DocumentKind of(String name, String mediaType) {
        String type = baseType(mediaType);
        if (type.isEmpty() || type.equals("application/octet-stream")) {
            String extension = FileNames.extension(name);
            if (extension.equals("pdf")) {
                return PDF;
            }
            if (extension.equals("html") || extension.equals("htm") || extension.equals("xhtml")) {
                return HTML;
            }
            if (TEXT_EXTENSIONS.contains(extension) || (extension.isEmpty() && !name.startsWith("."))) {
                return TEXT;
            }
            throw DocumentException.unsupported("'" + name + "' has no media type SkillForge reads and its extension ."
                    + extension + " is not one either: attach text, Markdown, source code, HTML or PDF");
        }
        if (type.equals("application/pdf")) {
            return PDF;
        }
        if (type.equals("text/html") || type.equals("application/xhtml+xml")) {
            return HTML;
        }
        if (type.startsWith("text/") || TEXT_TYPES.contains(type) || type.endsWith("+json") || type.endsWith("+xml")) {
            return TEXT;
        }
        throw DocumentException.unsupported("'" + name + "' is " + type + ", which SkillForge does not read: attach text, Markdown,"
                + " source code, HTML or PDF");
    }
}
