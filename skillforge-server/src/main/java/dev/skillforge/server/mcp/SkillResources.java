package dev.skillforge.server.mcp;

import dev.skillforge.core.transcript.StorableText;
import dev.skillforge.server.people.Caller;
import dev.skillforge.server.skill.SkillAccess;
import dev.skillforge.server.skill.SkillFileInfo;
import dev.skillforge.server.skill.SkillMediaTypes;
import dev.skillforge.server.skill.SkillStore;
import dev.skillforge.server.skill.SkillSummary;
import dev.skillforge.server.skill.SkillText;
import dev.skillforge.server.skill.SkillVersion;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;

import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every file of every skill as an MCP resource: {@code skill://NAME} is the skill's SKILL.md (and
 * {@code skill://NAME/SKILL.md} too), {@code skill://NAME/PATH} each other file. The list is read
 * from the skill store on every request, so it shows skills made since (by a turn, the page, or
 * another instance), sorted by URI. A text file is read as text, any other as a base64 blob.
 */
final class SkillResources {

    static final String MIME_TYPE = "text/markdown";

    private final SkillStore skills;

    SkillResources(SkillStore skills) {
        this.skills = skills;
    }

    /** Who a request reads and writes skills for: its caller, who may change the team library when an admin. */
    static SkillAccess access(Caller caller) {
        return new SkillAccess(caller.personId(), caller.admin());
    }

    /** Each skill of {@code who}'s SKILL.md as {@code skill://NAME}, and each other file, sorted by URI. */
    McpSchema.ListResourcesResult list(SkillAccess who) {
        String owner = who.owner();
        List<McpSchema.Resource> resources = new ArrayList<>();
        for (SkillSummary skill : skills.list(owner)) {
            resources.add(McpSchema.Resource.builder(SkillUris.of(skill.name()), skill.name()).title(skill.name())
                    .description(skill.description()).mimeType(MIME_TYPE).build());
            Optional<SkillVersion> current = skills.current(owner, skill.name());
            for (SkillFileInfo file : current.map(SkillVersion::files).orElse(List.of())) {
                if (!file.path().isSkillMd()) {
                    resources.add(McpSchema.Resource.builder(SkillUris.of(skill.name(), file.path()), file.path().value())
                            .title(skill.name() + "/" + file.path()).mimeType(SkillMediaTypes.of(file.path())).size(file.size()).build());
                }
            }
        }
        resources.sort(Comparator.comparing(McpSchema.Resource::uri));
        return McpSchema.ListResourcesResult.builder(resources).build();
    }

    /** The file {@code uri} names, exactly as stored: text, or base64 for a file that is not text. */
    McpSchema.ReadResourceResult read(SkillAccess who, String uri) {
        SkillUris.FileUri file = SkillUris.parse(uri).orElseThrow(() -> notFound(uri));
        String owner = who.owner();
        byte[] bytes = skills.current(owner, file.name())
                .flatMap(current -> skills.folder(owner, file.name(), current.version()))
                .flatMap(folder -> folder.file(file.path())).orElseThrow(() -> notFound(uri));
        String type = file.path().isSkillMd() ? MIME_TYPE : SkillMediaTypes.of(file.path());
        McpSchema.ResourceContents contents = SkillText.decode(bytes)
                .<McpSchema.ResourceContents>map(text -> McpSchema.TextResourceContents.builder(uri, text).mimeType(type).build())
                .orElseGet(() -> McpSchema.BlobResourceContents.builder(uri, Base64.getEncoder().encodeToString(bytes)).mimeType(type).build());
        return McpSchema.ReadResourceResult.builder(List.of(contents)).build();
    }

    McpSchema.ListResourceTemplatesResult templates() {
        return McpSchema.ListResourceTemplatesResult.builder(List.of(
                McpSchema.ResourceTemplate.builder(SkillUris.SCHEME + "{name}", "skill").title("A skill")
                        .description("The SKILL.md of the skill named NAME (see skill_list)").mimeType(MIME_TYPE).build(),
                McpSchema.ResourceTemplate.builder(SkillUris.SCHEME + "{name}/{+path}", "skill-file").title("A file of a skill")
                        .description("The file PATH of skill NAME: SKILL.md, or one under scripts/, references/ or assets/").build()))
                .build();
    }

    static McpError notFound(String uri) {
        return McpError.builder(McpSchema.ErrorCodes.RESOURCE_NOT_FOUND)
                .message("No such resource: " + (uri == null ? "(no uri)" : abbreviate(uri))
                        + "; skills are skill://NAME and their files skill://NAME/PATH (see resources/list)")
                .data(Map.of("uri", uri == null ? "" : abbreviate(uri))).build();
    }

    private static String abbreviate(String text) {
        return StorableText.abbreviate(text, 100);
    }
}
