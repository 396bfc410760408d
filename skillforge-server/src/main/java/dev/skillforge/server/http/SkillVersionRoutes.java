package dev.skillforge.server.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.skill.SkillFolder;
import dev.skillforge.server.skill.SkillPath;
import dev.skillforge.server.skill.SkillStore;
import dev.skillforge.server.skill.SkillVersion;
import dev.skillforge.server.skill.VersionSource;
import dev.skillforge.server.skill.diff.VersionDiff;
import dev.skillforge.server.skill.zip.SkillZipWriter;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.Locale;

/**
 * A skill's history over HTTP: its versions (newest first; a deleted skill still has them), one
 * version as a zip or one of its files, what changed between two versions, and a restore (which
 * makes a new version with the files of the one restored, and undeletes a deleted skill).
 */
final class SkillVersionRoutes {

    private final SkillStore skills;

    SkillVersionRoutes(SkillStore skills) {
        this.skills = skills;
    }

    void register(JavalinConfig config) {
        config.routes.get("/api/skills/{name}/versions", this::list);
        config.routes.get("/api/skills/{name}/versions/{version}.zip", this::zip);
        config.routes.get("/api/skills/{name}/versions/{version}/files/<path>", this::file);
        config.routes.get("/api/skills/{name}/diff", this::diff);
        config.routes.post("/api/skills/{name}/versions/{version}/restore", this::restore);
    }

    private void list(Context ctx) {
        String name = SkillHttp.name(ctx);
        List<SkillVersion> versions = skills.history(SkillHttp.caller(ctx).owner(), name);
        if (versions.isEmpty()) {
            throw SkillHttp.notFound(name);
        }
        ObjectNode body = Json.object().put("name", name).put("deleted", versions.getFirst().deleted());
        ArrayNode list = body.putArray("versions");
        versions.forEach(version -> list.add(SkillHttp.version(version)));
        ConversationRoutes.json(ctx, 200, body);
    }

    private void zip(Context ctx) throws IOException {
        String name = SkillHttp.name(ctx);
        int version = SkillHttp.version(ctx, name);
        SkillFolder folder = folder(ctx, name, version);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (SkillZipWriter zip = new SkillZipWriter(bytes)) {
            zip.add(folder, createdAt(ctx, name, version));
        }
        SkillHttp.zip(ctx, name + "-v" + version + ".zip", bytes.toByteArray());
    }

    private void file(Context ctx) {
        String name = SkillHttp.name(ctx);
        int version = SkillHttp.version(ctx, name);
        SkillPath path = SkillHttp.path(ctx);
        byte[] bytes = folder(ctx, name, version).file(path)
                .orElseThrow(() -> new ApiException(404, "not_found", "Version " + version + " of skill " + name + " has no file " + path));
        SkillHttp.download(ctx, path.value().substring(path.value().lastIndexOf('/') + 1), bytes);
    }

    /**
     * What changed from version {@code from} to version {@code to}: by default from the version before {@code to}, to the
     * newest. Version 0 is the empty folder before version 1; a deleting version counts as holding no files.
     */
    private void diff(Context ctx) {
        String name = SkillHttp.name(ctx);
        List<SkillVersion> history = skills.history(SkillHttp.caller(ctx).owner(), name);
        if (history.isEmpty()) {
            throw SkillHttp.notFound(name);
        }
        int to = number(ctx, "to", history.getFirst().version());
        int from = number(ctx, "from", to - 1);
        SkillFolder before = from == 0 ? null : contents(ctx, history, name, from);
        SkillFolder after = to == 0 ? null : contents(ctx, history, name, to);
        ObjectNode body = Json.object().put("name", name).put("from", from).put("to", to);
        ArrayNode files = body.putArray("files");
        for (VersionDiff.FileChange change : VersionDiff.between(before, after)) {
            ObjectNode file = files.addObject().put("path", change.path().value())
                    .put("change", change.change().name().toLowerCase(Locale.ROOT))
                    .put("sizeBefore", change.sizeBefore()).put("sizeAfter", change.sizeAfter());
            change.diff().ifPresentOrElse(diff -> file.put("diff", diff), () -> file.putNull("diff"));
        }
        ConversationRoutes.json(ctx, 200, body);
    }

    private void restore(Context ctx) {
        String name = SkillHttp.name(ctx);
        int version = SkillHttp.version(ctx, name);
        SkillHttp.written(ctx, SkillRoutes.storeCall(() -> skills.restore(SkillHttp.caller(ctx), name, version,
                VersionSource.of(VersionSource.Door.API))));
    }

    private SkillFolder folder(Context ctx, String name, int version) {
        return skills.folder(SkillHttp.caller(ctx).owner(), name, version)
                .orElseThrow(() -> new ApiException(404, "not_found", "Skill " + name + " has no version " + version + " with files"));
    }

    private long createdAt(Context ctx, String name, int version) {
        return skills.history(SkillHttp.caller(ctx).owner(), name).stream().filter(v -> v.version() == version)
                .mapToLong(SkillVersion::createdAt).findFirst().orElse(0);
    }

    /** The files of a version in {@code history}, null for one that deleted the skill; an unknown version is a 404. */
    private SkillFolder contents(Context ctx, List<SkillVersion> history, String name, int version) {
        SkillVersion found = history.stream().filter(v -> v.version() == version).findFirst()
                .orElseThrow(() -> new ApiException(404, "not_found", "Skill " + name + " has no version " + version));
        return found.deleted() ? null : folder(ctx, name, version);
    }

    private static int number(Context ctx, String parameter, int fallback) {
        String value = ctx.queryParam(parameter);
        if (value == null) {
            return fallback;
        }
        if (!value.matches("[0-9]{1,9}")) {
            throw ApiException.badRequest("invalid_request", "'" + parameter + "' must be a version number, e.g. ?from=2&to=3");
        }
        return Integer.parseInt(value);
    }
}
