package dev.skillforge.server.mcp;

import dev.skillforge.server.skill.SkillAccess;
import dev.skillforge.server.skill.SkillCommands;
import dev.skillforge.server.skill.SkillException;
import dev.skillforge.server.skill.SkillName;
import dev.skillforge.server.skill.SkillPath;
import dev.skillforge.server.skill.SkillStore;
import dev.skillforge.server.skill.SkillSummary;
import dev.skillforge.server.skill.SkillText;
import dev.skillforge.server.skill.SkillVersion;
import dev.skillforge.server.skill.VersionSource;
import dev.skillforge.server.skill.Written;
import io.modelcontextprotocol.spec.McpSchema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The skill store as five tools: {@code skill_list}, {@code skill_get}, {@code skill_set},
 * {@code skill_delete}, {@code skill_search}. They do what the model's {@code skill} commands do,
 * through the same {@link SkillStore}, so names and {@code SKILL.md} files are validated the same
 * way (the store refuses what the commands refuse, with the same words). Each write makes a
 * version whose source is {@code mcp}; a delete keeps the versions.
 */
final class SkillTools {

    private static final Logger log = LoggerFactory.getLogger(SkillTools.class);

    private static final String SUMMARY_ITEM = """
            {"type": "object",
             "properties": {
               "name": {"type": "string"},
               "description": {"type": "string"},
               "uri": {"type": "string", "description": "The skill as an MCP resource: its SKILL.md"}},
             "required": ["name", "description", "uri"]}""";
    private static final String NAME_ARGUMENT = """
            "name": {"type": "string", "description": "The skill's name: 1-64 characters of a-z, 0-9 and single hyphens, e.g. cold-brew-coffee"}""";

    private final SkillStore skills;

    private SkillTools(SkillStore skills) {
        this.skills = skills;
    }

    /** The five tools, in their fixed order. */
    static List<McpTool> over(SkillStore skills) {
        SkillTools tools = new SkillTools(skills);
        return List.of(tools.list(), tools.get(), tools.set(), tools.delete(), tools.search());
    }

    /** A tool made of its definition and a function. */
    private record Defined(McpSchema.Tool definition, Handler handler) implements McpTool {
        @Override
        public McpSchema.CallToolResult call(ToolCall call) {
            try {
                return handler.handle(SkillResources.access(call.caller()), call.arguments());
            } catch (SkillException e) {
                throw new ToolError(e.getMessage());
            } catch (ToolError e) {
                throw e;
            } catch (RuntimeException e) {
                log.warn("MCP tool {} failed", definition.name(), e); // the client gets no server details; the log gets them
                throw new ToolError("The skill store could not be read or written (" + e.getClass().getSimpleName()
                        + "); nothing was changed. Try again.");
            }
        }
    }

    private interface Handler {
        McpSchema.CallToolResult handle(SkillAccess who, ToolArguments arguments);
    }

    private static McpSchema.Tool tool(String name, String title, String description, String input, String output,
                                       McpSchema.ToolAnnotations annotations) {
        return McpSchema.Tool.builder(name, ToolResults.schema(input)).title(title).description(description)
                .outputSchema(ToolResults.schema(output)).annotations(annotations).build();
    }

    private static McpSchema.ToolAnnotations readOnly(String title) {
        return new McpSchema.ToolAnnotations(title, true, false, true, false, null);
    }

    private static McpSchema.ToolAnnotations changes(String title) {
        return new McpSchema.ToolAnnotations(title, false, true, true, false, null);
    }

    private McpTool list() {
        String title = "List skills";
        return new Defined(tool("skill_list", title, "Lists every skill in SkillForge's skill store (Agent Skills: folders with a"
                        + " SKILL.md), sorted by name, each with its description.",
                """
                        {"type": "object", "properties": {}, "additionalProperties": false}""",
                """
                        {"type": "object",
                         "properties": {"skills": {"type": "array", "items": %s}},
                         "required": ["skills"]}""".formatted(SUMMARY_ITEM), readOnly(title)),
                (who, arguments) -> {
                    arguments.allowOnly(List.of());
                    List<SkillSummary> found = skills.list(who.owner());
                    String text = found.isEmpty() ? "No skills yet. Create one with skill_set." : SkillCommands.count(found.size()) + ":\n" + SkillCommands.lines(found);
                    return ToolResults.ok(text, Map.of("skills", summaries(found)));
                });
    }

    private McpTool get() {
        String title = "Read a skill";
        return new Defined(tool("skill_get", title, "Returns the whole SKILL.md of one skill (YAML front matter with name and"
                        + " description, then the instructions), exactly as stored, or with path one of its other files (as text;"
                        + " a file that is not text is the resource skill://NAME/PATH).",
                """
                        {"type": "object",
                         "properties": {%s,
                           "path": {"type": "string", "description": "A file of the skill, e.g. scripts/extract.py; SKILL.md when absent"}},
                         "required": ["name"], "additionalProperties": false}""".formatted(NAME_ARGUMENT),
                """
                        {"type": "object",
                         "properties": {"name": {"type": "string"}, "path": {"type": "string"},
                           "content": {"type": "string", "description": "The file's text"},
                           "version": {"type": "integer", "description": "The skill's version the file was read from"},
                           "files": {"type": "array", "description": "Every file of that version",
                             "items": {"type": "object", "properties": {"path": {"type": "string"}, "size": {"type": "integer"},
                               "sha256": {"type": "string"}}, "required": ["path", "size", "sha256"]}}},
                         "required": ["name", "path", "content", "version", "files"]}""", readOnly(title)),
                (who, arguments) -> {
                    arguments.allowOnly(List.of("name", "path"));
                    String name = arguments.required("name");
                    String pathText = arguments.optional("path");
                    SkillPath path = pathText == null ? SkillPath.SKILL_MD : SkillPath.of(pathText);
                    String owner = who.owner();
                    SkillVersion current = skills.current(owner, name).orElseThrow(() -> notFound(name));
                    byte[] bytes = skills.folder(owner, name, current.version()).flatMap(folder -> folder.file(path))
                            .orElseThrow(() -> new ToolError("Skill " + name + " has no file " + path + "; its files are "
                                    + String.join(", ", current.files().stream().map(f -> f.path().value()).toList()) + "."));
                    String content = SkillText.decode(bytes).orElseThrow(() -> new ToolError(path + " of skill " + name + " is not text ("
                            + bytes.length + " bytes): read the resource " + SkillUris.of(name, path) + " for its bytes."));
                    return ToolResults.ok(content, ordered("name", name, "path", path.value(), "content", content,
                            "version", current.version(), "files", files(current)));
                });
    }

    private McpTool set() {
        String title = "Create or replace a skill";
        return new Defined(tool("skill_set", title, "Creates skill NAME, or replaces it, with the given SKILL.md: YAML front matter"
                        + " between --- lines holding name (the same NAME) and description (1-1024 characters: what the skill does"
                        + " and when to use it), then the instructions in Markdown. The file is checked before anything is written;"
                        + " an invalid one changes nothing.",
                """
                        {"type": "object",
                         "properties": {%s,
                           "content": {"type": "string", "description": "The whole SKILL.md, front matter included"}},
                         "required": ["name", "content"], "additionalProperties": false}""".formatted(NAME_ARGUMENT),
                """
                        {"type": "object",
                         "properties": {
                           "name": {"type": "string"},
                           "outcome": {"type": "string", "enum": ["created", "updated", "unchanged"]},
                           "bytes": {"type": "integer", "description": "The size of the SKILL.md written"},
                           "version": {"type": "integer", "description": "The skill's version now (unchanged: no new version)"},
                           "uri": {"type": "string"}},
                         "required": ["name", "outcome", "bytes", "version", "uri"]}""", changes(title)),
                (who, arguments) -> {
                    arguments.allowOnly(List.of("name", "content"));
                    String name = arguments.required("name");
                    byte[] content = arguments.required("content").getBytes(StandardCharsets.UTF_8);
                    Written written = skills.putFile(who, name, SkillPath.SKILL_MD, content, VersionSource.of(VersionSource.Door.MCP));
                    String outcome = written.outcome().name().toLowerCase(Locale.ROOT);
                    int version = written.version().version();
                    return ToolResults.ok("Saved skill " + name + " (" + outcome + ", " + content.length + " bytes, version " + version + ").",
                            ordered("name", name, "outcome", outcome, "bytes", content.length, "version", version,
                                    "uri", SkillUris.of(name)));
                });
    }

    private McpTool delete() {
        String title = "Delete a skill";
        return new Defined(tool("skill_delete", title, "Deletes skill NAME: it is no longer listed or read. Its versions are kept,"
                        + " and the person can restore it on SkillForge's page.",
                """
                        {"type": "object", "properties": {%s}, "required": ["name"], "additionalProperties": false}""".formatted(NAME_ARGUMENT),
                """
                        {"type": "object",
                         "properties": {"name": {"type": "string"}, "deleted": {"type": "boolean", "const": true}},
                         "required": ["name", "deleted"]}""", changes(title)),
                (who, arguments) -> {
                    String name = arguments.allowOnly(List.of("name")).required("name");
                    if (skills.delete(who, name, VersionSource.of(VersionSource.Door.MCP)).isEmpty()) {
                        throw notFound(name);
                    }
                    return ToolResults.ok("Deleted skill " + name + ".", ordered("name", name, "deleted", true));
                });
    }

    private McpTool search() {
        String title = "Search skills";
        return new Defined(tool("skill_search", title, "Finds the skills whose name, description or instructions contain every word"
                        + " of the query (any case), sorted by name.",
                """
                        {"type": "object",
                         "properties": {"query": {"type": "string", "description": "One or more words, separated by spaces"}},
                         "required": ["query"], "additionalProperties": false}""",
                """
                        {"type": "object",
                         "properties": {"query": {"type": "string"}, "skills": {"type": "array", "items": %s}},
                         "required": ["query", "skills"]}""".formatted(SUMMARY_ITEM), readOnly(title)),
                (who, arguments) -> {
                    String query = arguments.allowOnly(List.of("query")).required("query");
                    List<SkillSummary> found = skills.search(who.owner(), Arrays.asList(query.strip().split("\\s+")));
                    String quoted = "'" + query.strip() + "'";
                    String text = found.isEmpty() ? "No skills match " + quoted + "." : SkillCommands.count(found.size()) + " match " + quoted + ":\n" + SkillCommands.lines(found);
                    return ToolResults.ok(text, ordered("query", query, "skills", summaries(found)));
                });
    }

    private static ToolError notFound(String name) {
        SkillName.problemWith(name).ifPresent(problem -> {
            throw new ToolError(problem);
        });
        return new ToolError("There is no skill named " + name + ". skill_list shows the skills.");
    }

    private static List<Map<String, Object>> summaries(List<SkillSummary> found) {
        return found.stream().map(s -> ordered("name", s.name(), "description", s.description(), "uri", SkillUris.of(s.name()))).toList();
    }

    private static List<Map<String, Object>> files(SkillVersion version) {
        return version.files().stream().map(f -> ordered("path", f.path().value(), "size", f.size(), "sha256", f.sha256())).toList();
    }

    /** A JSON object with its fields in the order given. */
    private static Map<String, Object> ordered(Object... namesAndValues) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            map.put((String) namesAndValues[i], namesAndValues[i + 1]);
        }
        return map;
    }
}
