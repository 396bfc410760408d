package dev.skillforge.server.http;

import dev.skillforge.core.transcript.StorableText;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.skill.SkillName;
import dev.skillforge.server.skill.SkillStore;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;

/**
 * The skills, for the page: list, read one, download one as its {@code SKILL.md}, delete one. Names
 * are validated before any file is touched; an invalid or unknown name is a 404, like an unknown id.
 */
public final class SkillRoutes {

    private final SkillStore skills;

    public SkillRoutes(SkillStore skills) {
        this.skills = skills;
    }

    void register(JavalinConfig config) {
        config.routes.get("/api/skills", this::list);
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
        ctx.header("Content-Disposition", "attachment; filename=\"SKILL.md\"");
        ctx.status(200).contentType("text/markdown;charset=utf-8").result(content);
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
