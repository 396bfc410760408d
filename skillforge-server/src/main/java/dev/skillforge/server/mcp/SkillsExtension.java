package dev.skillforge.server.mcp;

import dev.skillforge.core.transcript.StorableText;
import dev.skillforge.server.skill.SkillFolder;
import dev.skillforge.server.skill.SkillAccess;
import dev.skillforge.server.skill.SkillPath;
import dev.skillforge.server.skill.SkillStore;
import dev.skillforge.server.skill.SkillSummary;
import dev.skillforge.server.skill.SkillVersion;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The MCP Skills extension ({@value #ID}): {@code skills/list} gives each skill's entry (the URI of
 * its SKILL.md, its front matter as JSON, and every file with its SHA-256 digest and size), and
 * {@code skills/get} one skill's entry by the URI of its SKILL.md, so a client can check each file
 * it reads with {@code resources/read}. The whole catalogue comes in one page.
 */
final class SkillsExtension {

    static final String ID = "io.modelcontextprotocol/skills";
    static final String METHOD_LIST = "skills/list";
    static final String METHOD_GET = "skills/get";

    /** How long a client may take an entry as current: skills change whenever a person or model writes one. */
    private static final long TTL_MILLIS = 60_000;

    private final SkillStore skills;

    SkillsExtension(SkillStore skills) {
        this.skills = skills;
    }

    /** The extension's entry in the server's capabilities: no optional feature ({@code resources/directory/read}). */
    static Map<String, Map<String, Object>> capability() {
        return Map.of(ID, Map.of());
    }

    Map<String, Object> list(SkillAccess who) {
        String owner = who.owner();
        List<Map<String, Object>> entries = skills.list(owner).stream().map(SkillSummary::name)
                .flatMap(name -> entry(owner, name).stream()).toList();
        return result("skills", entries);
    }

    Map<String, Object> get(SkillAccess who, String uri) {
        SkillUris.FileUri file = SkillUris.parse(uri).filter(f -> f.path().isSkillMd() && uri.endsWith("/" + SkillPath.SKILL_MD))
                .orElseThrow(() -> invalidParams("skills/get needs the uri of a skill's SKILL.md, skill://NAME/SKILL.md; got "
                        + StorableText.abbreviate(String.valueOf(uri), 100)));
        Map<String, Object> entry = entry(who.owner(), file.name())
                .orElseThrow(() -> invalidParams("No skill at " + StorableText.abbreviate(String.valueOf(uri), 100) + " (see skills/list)"));
        return result("skill", entry);
    }

    private Optional<Map<String, Object>> entry(String owner, String name) {
        Optional<SkillVersion> current = skills.current(owner, name);
        Optional<SkillFolder> folder = current.flatMap(version -> skills.folder(owner, name, version.version()));
        if (current.isEmpty() || folder.isEmpty()) {
            return Optional.empty();
        }
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("uri", SkillUris.of(name, SkillPath.SKILL_MD));
        entry.put("frontmatter", folder.get().document().frontMatter());
        entry.put("resources", current.get().files().stream().map(file -> Map.<String, Object>of(
                "uri", SkillUris.of(name, file.path()), "digest", "sha256:" + file.sha256(), "size", file.size())).toList());
        return Optional.of(entry);
    }

    private static Map<String, Object> result(String field, Object value) {
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("resultType", "complete");
        result.put(field, value);
        result.put("ttlMs", TTL_MILLIS);
        result.put("cacheScope", "private"); // a person's own skills, once people sign in
        return result;
    }

    private static McpError invalidParams(String message) {
        return McpError.builder(McpSchema.ErrorCodes.INVALID_PARAMS).message(message).build();
    }
}
