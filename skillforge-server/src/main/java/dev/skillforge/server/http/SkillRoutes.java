package dev.skillforge.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.skill.SkillAccess;
import dev.skillforge.server.skill.SkillException;
import dev.skillforge.server.skill.SkillLimits;
import dev.skillforge.server.skill.SkillPath;
import dev.skillforge.server.skill.SkillStore;
import dev.skillforge.server.skill.SkillSummary;
import dev.skillforge.server.skill.SkillVersion;
import dev.skillforge.server.skill.VersionSource;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;

import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * The skills over HTTP, for the page and scripts: list them, read one (its SKILL.md and its files),
 * write its SKILL.md or any of its files, delete it or one file. Every write makes a version
 * ({@link SkillVersionRoutes} shows and restores them; {@link SkillZipRoutes} imports and exports
 * zips). Names are checked before anything is read: an invalid or unknown name is a 404, like an
 * unknown id; an invalid file path is a 400 that says why. A refused write is a 400 listing every
 * problem, or a 413 over a limit, and changes nothing.
 */
public final class SkillRoutes implements Door {

    /** Room for a SKILL.md at its limit (256 KiB) even when JSON escaping doubles it; the store checks the limit itself. */
    private static final int MAX_PUT_BODY_BYTES = 1024 * 1024;

    private final SkillStore skills;
    private final SkillLimits limits;
    private final SkillVersionRoutes versions;
    private final SkillZipRoutes zips;

    public SkillRoutes(SkillStore skills, SkillLimits limits) {
        this.skills = skills;
        this.limits = limits;
        this.versions = new SkillVersionRoutes(skills);
        this.zips = new SkillZipRoutes(skills, limits);
    }

    @Override
    public void register(JavalinConfig config) {
        config.routes.get("/api/skills", this::list);
        zips.register(config); // before /api/skills/{name}: NAME.zip is no skill's name
        config.routes.put("/api/skills/{name}", this::put);
        config.routes.get("/api/skills/{name}", this::get);
        config.routes.get("/api/skills/{name}/SKILL.md", this::downloadSkillMd);
        config.routes.delete("/api/skills/{name}", this::delete);
        config.routes.get("/api/skills/{name}/files/<path>", this::downloadFile);
        config.routes.put("/api/skills/{name}/files/<path>", this::putFile);
        config.routes.delete("/api/skills/{name}/files/<path>", this::deleteFile);
        config.routes.post("/api/skills/{name}/publish", this::publish);
        versions.register(config);
    }

    /** The skills the person reads, or with {@code ?deleted=true} their own deleted ones (each with the version that deleted it). */
    private void list(Context ctx) {
        String owner = SkillHttp.caller(ctx).owner();
        boolean deleted = "true".equals(ctx.queryParam("deleted"));
        ObjectNode body = Json.object();
        ArrayNode items = body.putArray("skills");
        for (SkillSummary summary : deleted ? skills.deleted(owner) : skills.list(owner)) {
            items.addObject().put("name", summary.name()).put("description", summary.description()).put("version", summary.version())
                    .put("updatedAt", summary.updatedAt()).put("library", summary.team() ? "team" : "own");
        }
        ConversationRoutes.json(ctx, 200, body);
    }

    /** The skill's newest version: its SKILL.md as {@code content}, and its files. */
    private void get(Context ctx) {
        String name = SkillHttp.name(ctx);
        SkillVersion current = current(ctx, name);
        ObjectNode body = SkillHttp.version(current);
        body.put("content", new String(file(ctx, current, SkillPath.SKILL_MD), StandardCharsets.UTF_8));
        ConversationRoutes.json(ctx, 200, body);
    }

    private void downloadSkillMd(Context ctx) {
        String name = SkillHttp.name(ctx);
        byte[] content = file(ctx, current(ctx, name), SkillPath.SKILL_MD);
        // Named by the skill: ten downloads are not ten files called SKILL.md.
        ctx.header("Content-Disposition", "attachment; filename=\"" + name + "-SKILL.md\"");
        ctx.status(200).contentType("text/markdown;charset=utf-8").result(content);
    }

    private void downloadFile(Context ctx) {
        String name = SkillHttp.name(ctx);
        SkillPath path = SkillHttp.path(ctx);
        SkillHttp.download(ctx, path.value().substring(path.value().lastIndexOf('/') + 1), file(ctx, current(ctx, name), path));
    }

    /** Creates or replaces a skill's SKILL.md from the page's editor: the store checks it, and its refusal is the 400. */
    private void put(Context ctx) {
        String name = ctx.pathParam("name");
        JsonNode body = RequestBodies.readJsonObject(ctx.req(), MAX_PUT_BODY_BYTES);
        JsonNode content = body.get("content");
        if (content == null || !content.isTextual()) {
            throw ApiException.badRequest("invalid_request", "'content' must be the whole SKILL.md as a string");
        }
        byte[] bytes = content.asText().getBytes(StandardCharsets.UTF_8);
        SkillHttp.written(ctx, storeCall(() -> skills.putFile(SkillHttp.caller(ctx), name, SkillPath.SKILL_MD, bytes, api())), SkillPath.SKILL_MD);
    }

    /** Creates or replaces one file: the body is its bytes ({@code application/octet-stream}). */
    private void putFile(Context ctx) {
        String name = ctx.pathParam("name");
        SkillPath path = SkillHttp.path(ctx);
        byte[] bytes = RequestBodies.readLimited(ctx.req(), (int) Math.min(Integer.MAX_VALUE - 8,
                path.isSkillMd() ? MAX_PUT_BODY_BYTES : limits.maxFileBytes()));
        SkillHttp.written(ctx, storeCall(() -> skills.putFile(SkillHttp.caller(ctx), name, path, bytes, api())), path);
    }

    private void deleteFile(Context ctx) {
        String name = SkillHttp.name(ctx);
        SkillPath path = SkillHttp.path(ctx);
        SkillHttp.written(ctx, storeCall(() -> skills.removeFile(SkillHttp.caller(ctx), name, path, api())));
    }

    /** Deletes the skill: a version that holds no files; its history stays, and a restore brings it back. */
    private void delete(Context ctx) {
        String name = SkillHttp.name(ctx);
        if (storeCall(() -> skills.delete(SkillHttp.caller(ctx), name, api())).isEmpty()) {
            throw SkillHttp.notFound(name);
        }
        ctx.status(204);
    }

    /** Copies the person's own skill into the team library: for team admins only (a skill they lack is a 404 first). */
    private void publish(Context ctx) {
        String name = SkillHttp.name(ctx);
        SkillAccess caller = SkillHttp.caller(ctx);
        if (skills.current(caller.owner(), name).filter(version -> !version.team()).isEmpty()) {
            throw SkillHttp.notFound(name);
        }
        SkillHttp.written(ctx, storeCall(() -> skills.publish(caller, name, api())));
    }

    private SkillVersion current(Context ctx, String name) {
        return skills.current(SkillHttp.caller(ctx).owner(), name).orElseThrow(() -> SkillHttp.notFound(name));
    }

    private byte[] file(Context ctx, SkillVersion version, SkillPath path) {
        return skills.folder(SkillHttp.caller(ctx).owner(), version.name(), version.version()).flatMap(folder -> folder.file(path))
                .orElseThrow(() -> new ApiException(404, "not_found", "Skill " + version.name() + " has no file " + path));
    }

    private static VersionSource api() {
        return VersionSource.of(VersionSource.Door.API);
    }

    /** A store call whose refusal is the HTTP answer. */
    static <T> T storeCall(Supplier<T> call) {
        try {
            return call.get();
        } catch (SkillException e) {
            throw SkillHttp.refused(e);
        }
    }
}
