package dev.skillforge.server.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.core.transcript.StorableText;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.people.Caller;
import dev.skillforge.server.skill.SkillAccess;
import dev.skillforge.server.skill.SkillException;
import dev.skillforge.server.skill.SkillFileInfo;
import dev.skillforge.server.skill.SkillName;
import dev.skillforge.server.skill.SkillPath;
import dev.skillforge.server.skill.SkillText;
import dev.skillforge.server.skill.SkillVersion;
import dev.skillforge.server.skill.Written;
import io.javalin.http.Context;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/** What the skill routes share: who asks, the path parameters checked, refusals as HTTP answers, versions as JSON, downloads. */
final class SkillHttp {

    private SkillHttp() {
    }

    /** Who a request acts for: its signed-in person (or the one person), who may change the team library when an admin. */
    static SkillAccess caller(Context ctx) {
        Caller caller = Callers.of(ctx);
        return new SkillAccess(caller.personId(), caller.admin());
    }

    /** The {@code {name}} parameter: an invalid name is unknown (404), like an unknown id. */
    static String name(Context ctx) {
        String name = ctx.pathParam("name");
        if (!SkillName.isValid(name)) {
            throw notFound(name);
        }
        return name;
    }

    /** The {@code {path}} parameter, a skill file's path: an invalid one is a 400 that says why. */
    static SkillPath path(Context ctx) {
        String path = ctx.pathParam("path");
        SkillPath.problemWith(path).ifPresent(problem -> {
            throw ApiException.badRequest("invalid_path", capitalized(problem));
        });
        return SkillPath.of(path);
    }

    /** The {@code {version}} parameter: not a version number is an unknown version (404). */
    static int version(Context ctx, String name) {
        String text = ctx.pathParam("version");
        if (!text.matches("[0-9]{1,9}") || Integer.parseInt(text) < 1) {
            throw new ApiException(404, "not_found", "Skill " + name + " has no version " + StorableText.abbreviate(text, 20));
        }
        return Integer.parseInt(text);
    }

    static ApiException notFound(String name) {
        return new ApiException(404, "not_found", "No skill named " + StorableText.abbreviate(name, 64));
    }

    /** A refusal of the store as its answer: 400 (with every problem), 413, 404 or 403. */
    static ApiException refused(SkillException e) {
        List<String> problems = e.problems().stream().map(SkillHttp::capitalized).toList();
        String message = String.join(" ", problems);
        return switch (e.kind()) {
            case INVALID -> new ApiException(400, "invalid_skill", message, problems);
            case TOO_LARGE -> new ApiException(413, "skill_too_large", message, problems);
            case NOT_FOUND -> new ApiException(404, "not_found", message);
            case FORBIDDEN -> new ApiException(403, "forbidden", message);
        };
    }

    /** A version and what the write did, as a write's answer: 201 when it created the skill, else 200. */
    static void written(Context ctx, Written written) {
        answer(ctx, written, version(written.version()).put("outcome", written.outcome().name().toLowerCase(Locale.ROOT)));
    }

    /** {@link #written(Context, Written)} of a write of one file, with its size ({@code bytes}). */
    static void written(Context ctx, Written written, SkillPath path) {
        answer(ctx, written, version(written.version()).put("outcome", written.outcome().name().toLowerCase(Locale.ROOT))
                .put("bytes", written.version().files().stream().filter(f -> f.path().equals(path)).mapToLong(SkillFileInfo::size).sum()));
    }

    private static void answer(Context ctx, Written written, ObjectNode body) {
        ConversationRoutes.json(ctx, written.outcome() == Written.Outcome.CREATED ? 201 : 200, body);
    }

    /** A version as the API shows it. */
    static ObjectNode version(SkillVersion version) {
        ObjectNode node = Json.object().put("name", version.name()).put("version", version.version())
                .put("createdAt", version.createdAt()).put("source", version.source().door().wireName());
        if (version.source().conversationId() != null) {
            node.put("conversationId", version.source().conversationId());
        }
        if (version.source().restoredFrom() != null) {
            node.put("restoredFrom", version.source().restoredFrom());
        }
        node.put("deleted", version.deleted()).put("library", version.team() ? "team" : "own").put("description", version.description());
        files(node.putArray("files"), version.files());
        return node;
    }

    static void files(ArrayNode array, List<SkillFileInfo> files) {
        files.forEach(file -> array.addObject().put("path", file.path().value()).put("size", file.size()).put("sha256", file.sha256()));
    }

    /**
     * A skill's file as a download, never as something the browser renders or runs: text as {@code text/plain}, anything
     * else as {@code application/octet-stream}, and always {@code Content-Disposition: attachment}.
     */
    static void download(Context ctx, String fileName, byte[] bytes) {
        String type = SkillText.decode(bytes).isPresent() ? "text/plain; charset=utf-8" : "application/octet-stream";
        ctx.status(200).contentType(type).header("Content-Disposition", attachment(fileName)).result(bytes);
    }

    static void zip(Context ctx, String fileName, byte[] zip) {
        ctx.status(200).contentType("application/zip").header("Content-Disposition", attachment(fileName)).result(zip);
    }

    private static String attachment(String fileName) {
        String encoded = "filename*=UTF-8''" + URLEncoder.encode(fileName, StandardCharsets.UTF_8).replace("+", "%20");
        return fileName.matches("[A-Za-z0-9._-]+") ? "attachment; filename=\"" + fileName + "\"; " + encoded : "attachment; " + encoded;
    }

    private static String capitalized(String sentence) {
        return sentence.isEmpty() ? sentence : Character.toUpperCase(sentence.charAt(0)) + sentence.substring(1);
    }
}
