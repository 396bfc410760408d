package dev.skillforge.server.mcp;

import dev.skillforge.core.transcript.StorableText;
import dev.skillforge.server.skill.SkillName;
import dev.skillforge.server.skill.SkillStore;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Each skill as an MCP resource, {@code skill://NAME}, whose content is its {@code SKILL.md}. The list
 * is read from the skill store on every request, so it shows skills made since (by a turn, the page,
 * or another process on the same data folder), always sorted by name. {@code skill://{name}} is also
 * offered as a resource template.
 */
final class SkillResources {

    static final String SCHEME = "skill://";
    static final String MIME_TYPE = "text/markdown";

    private static final Logger log = LoggerFactory.getLogger(SkillResources.class);

    private final SkillStore skills;

    SkillResources(SkillStore skills) {
        this.skills = skills;
    }

    static String uri(String name) {
        return SCHEME + name;
    }

    /** Every valid skill, sorted by name. */
    McpSchema.ListResourcesResult list() {
        try {
            List<McpSchema.Resource> resources = skills.list().stream()
                    .map(skill -> McpSchema.Resource.builder(uri(skill.name()), skill.name()).title(skill.name())
                            .description(skill.description()).mimeType(MIME_TYPE).build())
                    .toList();
            return McpSchema.ListResourcesResult.builder(resources).build();
        } catch (IOException e) {
            throw storeFailed(e);
        }
    }

    /** The SKILL.md of {@code skill://NAME}, exactly as stored. */
    McpSchema.ReadResourceResult read(String uri) {
        String name = nameOf(uri).orElseThrow(() -> notFound(uri));
        try {
            String content = skills.get(name).orElseThrow(() -> notFound(uri));
            return McpSchema.ReadResourceResult.builder(List.of(McpSchema.TextResourceContents.builder(uri, content).mimeType(MIME_TYPE).build())).build();
        } catch (IOException e) {
            throw storeFailed(e);
        }
    }

    McpSchema.ListResourceTemplatesResult templates() {
        return McpSchema.ListResourceTemplatesResult.builder(List.of(McpSchema.ResourceTemplate.builder(SCHEME + "{name}", "skill")
                .title("A skill").description("The SKILL.md of the skill named NAME (see skill_list)").mimeType(MIME_TYPE).build())).build();
    }

    private static Optional<String> nameOf(String uri) {
        if (uri == null || !uri.startsWith(SCHEME)) {
            return Optional.empty();
        }
        String name = uri.substring(SCHEME.length());
        return SkillName.isValid(name) ? Optional.of(name) : Optional.empty();
    }

    private static McpError notFound(String uri) {
        return McpError.builder(McpSchema.ErrorCodes.RESOURCE_NOT_FOUND)
                .message("No such resource: " + (uri == null ? "(no uri)" : abbreviate(uri)) + "; skills are skill://NAME (see resources/list)")
                .data(Map.of("uri", uri == null ? "" : abbreviate(uri))).build();
    }

    private static McpError storeFailed(IOException e) {
        log.warn("MCP resources: the skill store failed", e);
        return McpError.builder(McpSchema.ErrorCodes.INTERNAL_ERROR).message("The skill store could not read its files; try again").build();
    }

    private static String abbreviate(String text) {
        return StorableText.abbreviate(text, 100);
    }
}
