package dev.skillforge.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.core.transcript.StorableText;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.skill.SkillException;
import dev.skillforge.server.skill.SkillName;
import dev.skillforge.server.skill.SkillStore;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * The skills, for the page: list, read one, download one as its {@code SKILL.md} or all as a zip,
 * create or replace one (validated by the store), delete one. Names
 * are validated before any file is touched; an invalid or unknown name is a 404, like an unknown id.
 */
public final class SkillRoutes {

    /** Room for a SKILL.md at its limit (256 KiB) even when JSON escaping doubles it; the store checks the limit itself. */
    private static final int MAX_PUT_BODY_BYTES = 1024 * 1024;

    private final SkillStore skills;

    public SkillRoutes(SkillStore skills) {
        this.skills = skills;
    }

    void register(JavalinConfig config) {
        config.routes.get("/api/skills", this::list);
        config.routes.get("/api/skills.zip", this::zip);
        config.routes.put("/api/skills/{name}", this::put);
        config.routes.get("/api/skills/{name}", this::get);
        config.routes.get("/api/skills/{name}/SKILL.md", this::download);
        config.routes.delete("/api/skills/{name}", this::delete);
    }

    private void list(Context ctx) throws Exception {
        ObjectNode body = Json.object();
        ArrayNode items = body.putArray("skills");
        for (SkillStore.Summary summary : skills.list()) {
            items.addObject().put("name", summary.name()).put("description", summary.description());
        }
        ConversationRoutes.json(ctx, 200, body);
    }

    private void get(Context ctx) throws Exception {
        String name = name(ctx);
        String content = skills.get(name).orElseThrow(() -> notFound(name));
        ConversationRoutes.json(ctx, 200, Json.object().put("name", name).put("content", content));
    }

    private void download(Context ctx) throws Exception {
        String name = name(ctx);
        String content = skills.get(name).orElseThrow(() -> notFound(name));
        // Named by the skill: ten downloads are not ten files called SKILL.md (a valid name needs no quoting).
        ctx.header("Content-Disposition", "attachment; filename=\"" + name + "-SKILL.md\"");
        ctx.status(200).contentType("text/markdown;charset=utf-8").result(content);
    }

    /** Creates or replaces a skill from the page's editor: the store validates it, and its refusal is the 400's message. */
    private void put(Context ctx) throws Exception {
        String name = ctx.pathParam("name");
        JsonNode body = RequestBodies.readJsonObject(ctx.req(), MAX_PUT_BODY_BYTES);
        JsonNode content = body.get("content");
        if (content == null || !content.isTextual()) {
            throw ApiException.badRequest("invalid_request", "'content' must be the whole SKILL.md as a string");
        }
        SkillStore.Saved saved;
        try {
            saved = skills.save(name, content.asText());
        } catch (SkillException e) {
            throw ApiException.badRequest("invalid_skill", e.getMessage());
        }
        ConversationRoutes.json(ctx, saved.outcome() == SkillStore.Outcome.CREATED ? 201 : 200, Json.object().put("name", saved.name())
                .put("outcome", saved.outcome().name().toLowerCase(Locale.ROOT)).put("bytes", saved.bytes()));
    }

    /**
     * Every skill in one zip, in the Agent Skills layout ({@code NAME/SKILL.md}): unpacked into a skills
     * folder (Claude Code's {@code ~/.claude/skills}, another agent's), each is ready to use.
     */
    private void zip(Context ctx) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(bytes, StandardCharsets.UTF_8)) {
            for (SkillStore.Summary summary : skills.list()) {
                Optional<String> content = skills.get(summary.name());
                if (content.isPresent()) { // deleted meanwhile: left out
                    zip.putNextEntry(new ZipEntry(summary.name() + "/" + SkillStore.SKILL_FILE));
                    zip.write(content.get().getBytes(StandardCharsets.UTF_8));
                    zip.closeEntry();
                }
            }
        }
        ctx.header("Content-Disposition", "attachment; filename=\"skills.zip\"");
        ctx.status(200).contentType("application/zip").result(bytes.toByteArray());
    }

    private void delete(Context ctx) throws Exception {
        String name = name(ctx);
        if (!skills.delete(name)) {
            throw notFound(name);
        }
        ctx.status(204);
    }

    private static String name(Context ctx) {
        String name = ctx.pathParam("name");
        if (!SkillName.isValid(name)) {
            throw notFound(name);
        }
        return name;
    }

    private static ApiException notFound(String name) {
        return new ApiException(404, "not_found", "No skill named " + StorableText.abbreviate(name, 64));
    }
}
