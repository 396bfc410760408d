package dev.skillforge.server.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.skill.SkillLimits;
import dev.skillforge.server.skill.SkillStore;
import dev.skillforge.server.skill.SkillSummary;
import dev.skillforge.server.skill.SkillVersion;
import dev.skillforge.server.skill.VersionSource;
import dev.skillforge.server.skill.Written;
import dev.skillforge.server.skill.zip.SkillZipReader;
import dev.skillforge.server.skill.zip.SkillZipWriter;
import dev.skillforge.server.skill.zip.ZipRefusedException;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Skills as zips: every skill, or one, exported in the Agent Skills layout ({@code NAME/SKILL.md},
 * {@code NAME/scripts/…}), and zips imported ({@code Content-Type: application/zip}): one skill's
 * folder, several, or a SKILL.md at the root. A zip is checked whole before anything is written
 * ({@link SkillZipReader}); a refusal is a 400 or 413 that says what is wrong, and writes nothing.
 * The skills of one zip are written in one transaction, each as a new version.
 */
final class SkillZipRoutes {

    /** The largest zip taken. */
    static final int MAX_ZIP_BYTES = 32 * 1024 * 1024;

    private final SkillStore skills;
    private final SkillZipReader reader;

    SkillZipRoutes(SkillStore skills, SkillLimits limits) {
        this.skills = skills;
        this.reader = new SkillZipReader(limits);
    }

    void register(JavalinConfig config) {
        config.routes.get("/api/skills.zip", this::exportAll);
        config.routes.post("/api/skills/import", this::importZip);
        config.routes.get("/api/skills/{name}.zip", this::exportOne);
    }

    /** Every skill the person lists (their own, then the team library's), as one zip. */
    private void exportAll(Context ctx) throws IOException {
        String owner = SkillHttp.caller(ctx).owner();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (SkillZipWriter zip = new SkillZipWriter(bytes)) {
            for (SkillSummary summary : skills.list(owner)) {
                Optional<SkillVersion> current = skills.current(owner, summary.name()); // deleted meanwhile: left out
                if (current.isPresent()) {
                    zip.add(skills.folder(owner, summary.name(), current.get().version()).orElseThrow(), current.get().createdAt());
                }
            }
        }
        SkillHttp.zip(ctx, "skills.zip", bytes.toByteArray());
    }

    private void exportOne(Context ctx) throws IOException {
        String name = SkillHttp.name(ctx);
        String owner = SkillHttp.caller(ctx).owner();
        SkillVersion current = skills.current(owner, name).orElseThrow(() -> SkillHttp.notFound(name));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (SkillZipWriter zip = new SkillZipWriter(bytes)) {
            zip.add(skills.folder(owner, name, current.version()).orElseThrow(() -> SkillHttp.notFound(name)), current.createdAt());
        }
        SkillHttp.zip(ctx, name + ".zip", bytes.toByteArray());
    }

    private void importZip(Context ctx) {
        byte[] zip = RequestBodies.readLimited(ctx.req(), MAX_ZIP_BYTES);
        if (zip.length == 0) {
            throw ApiException.badRequest("invalid_zip", "The body is empty: send the zip itself, with Content-Type: application/zip");
        }
        SkillZipReader.Unpacked unpacked;
        try {
            unpacked = SkillRoutes.storeCall(() -> reader.read(zip));
        } catch (ZipRefusedException e) {
            String message = "The zip was not imported: " + e.getMessage();
            throw e.tooLarge() ? new ApiException(413, "zip_too_large", message) : ApiException.badRequest("invalid_zip", message);
        }
        List<Written> written = SkillRoutes.storeCall(() -> skills.writeAll(SkillHttp.caller(ctx), unpacked.skills(),
                VersionSource.of(VersionSource.Door.IMPORT)));
        ObjectNode body = Json.object();
        ArrayNode imported = body.putArray("imported");
        written.forEach(w -> imported.addObject().put("name", w.version().name()).put("version", w.version().version())
                .put("outcome", w.outcome().name().toLowerCase(Locale.ROOT)));
        unpacked.skipped().forEach(body.putArray("skipped")::add);
        ConversationRoutes.json(ctx, 201, body);
    }
}
