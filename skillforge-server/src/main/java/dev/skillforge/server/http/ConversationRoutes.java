package dev.skillforge.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.core.transcript.StorableText;
import dev.skillforge.server.conversation.ConversationChanges;
import dev.skillforge.server.conversation.ConversationException;
import dev.skillforge.server.conversation.ConversationService;
import dev.skillforge.server.conversation.ConversationSnapshot;
import dev.skillforge.server.conversation.MarkdownExport;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.run.AgentRun;
import dev.skillforge.server.run.RunEventLog;
import dev.skillforge.server.store.ConversationRecord;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The conversation API: create, list, read, rename, delete; a turn by sending only the new message;
 * re-attaching to a running or just-finished turn ({@code Last-Event-ID} resumes after the last
 * event seen); stop; export. A turn belongs to the server: a client that leaves does not stop it.
 */
public final class ConversationRoutes {

    private static final int MAX_SMALL_BODY_BYTES = 64 * 1024;

    private final ConversationService conversations;
    public ConversationRoutes(ConversationService conversations) {
        this.conversations = conversations;
    }

    void register(JavalinConfig config) {
        config.routes.post("/api/conversations", this::create);
        config.routes.get("/api/conversations", this::list);
        config.routes.get("/api/conversations/search", this::search);
        config.routes.get("/api/conversations/changes", this::changes);
        config.routes.get("/api/conversations/{id}", ctx -> json(ctx, 200, conversations.snapshotJson(ctx.pathParam("id"))));
        config.routes.patch("/api/conversations/{id}", this::rename);
        config.routes.delete("/api/conversations/{id}", ctx -> {
            conversations.delete(ctx.pathParam("id"));
            ctx.status(204);
        });
        config.routes.post("/api/conversations/{id}/messages", this::message);
        config.routes.get("/api/conversations/{id}/events", this::events);
        config.routes.post("/api/conversations/{id}/stop", ctx ->
                json(ctx, 200, Json.object().put("stopped", conversations.stop(ctx.pathParam("id")))));
        config.routes.get("/api/conversations/{id}/export", this::export);
        config.routes.post("/api/conversations/{id}/fork", this::fork);
        config.routes.exception(ConversationException.class, (e, ctx) -> {
            int status = switch (e.kind()) {
                case NOT_FOUND -> 404;
                case BUSY -> 409;
                case INVALID -> 400;
                case TOO_LARGE -> 413;
                case UNAVAILABLE -> 503;
                case PROVIDER_GONE -> 409;
            };
            String code = switch (e.kind()) {
                case NOT_FOUND -> "not_found";
                case BUSY -> "turn_in_progress";
                case INVALID -> "invalid_request";
                case TOO_LARGE -> "message_too_large";
                case UNAVAILABLE -> "storage_unavailable";
                case PROVIDER_GONE -> "provider_not_configured";
            };
            ApiServer.error(ctx, status, code, e.getMessage());
        });
    }

    private void create(Context ctx) throws Exception {
        JsonNode body = RequestBodies.readJsonObjectOrEmpty(ctx.req(), MAX_SMALL_BODY_BYTES);
        String title = body.has("title") ? stringField(body, "title") : null;
        String provider = body.has("provider") ? stringField(body, "provider") : null;
        String model = body.has("model") ? stringField(body, "model") : null;
        ConversationRecord record = conversations.create(title, provider, model);
        json(ctx, 201, summary(record, false));
    }

    private void list(Context ctx) {
        int limit = intParam(ctx, "limit", 20, 1, 100);
        int offset = intParam(ctx, "offset", 0, 0, Integer.MAX_VALUE);
        List<ConversationRecord> page = conversations.list(limit, offset);
        ObjectNode body = Json.object();
        ArrayNode items = body.putArray("conversations");
        page.forEach(record -> items.add(summary(record, conversations.isRunning(record.id()))));
        body.put("total", conversations.count()).put("limit", limit).put("offset", offset);
        json(ctx, 200, body);
    }

    /** One stream per page: every change to the conversations here ({@link ConversationChanges}), until the client or the server leaves. */
    private void changes(Context ctx) throws Exception {
        try (ConversationChanges.Subscription subscription = conversations.changes().subscribe()) {
            new SseWriter(ctx.res()).follow(subscription);
        }
    }

    /** Ends the pages' change streams: the server stops. */
    void close() {
        conversations.changes().close();
    }

    /** {@code ?q=WORDS}: the conversations whose title or messages have every word, most recently updated first. */
    private void search(Context ctx) {
        String query = Optional.ofNullable(ctx.queryParam("q")).orElse("");
        if (query.length() > 200) {
            throw ApiException.badRequest("invalid_request", "q is " + query.length() + " characters; the limit is 200");
        }
        int limit = intParam(ctx, "limit", 20, 1, 100);
        ObjectNode body = Json.object();
        ArrayNode items = body.putArray("conversations");
        conversations.search(query, limit).forEach(record -> items.add(summary(record, conversations.isRunning(record.id()))));
        body.put("q", query).put("limit", limit);
        json(ctx, 200, body);
    }

    /** {@code {"beforeTurn": N}}: a new conversation with this one's turns before N (an edited message, a regenerated answer). */
    private void fork(Context ctx) throws Exception {
        JsonNode body = RequestBodies.readJsonObject(ctx.req(), MAX_SMALL_BODY_BYTES);
        JsonNode before = body.get("beforeTurn");
        if (before == null || !before.canConvertToInt() || !before.isIntegralNumber()) {
            throw ApiException.badRequest("invalid_request", "'beforeTurn' must be a turn number: send {\"beforeTurn\": N}");
        }
        json(ctx, 201, summary(conversations.fork(ctx.pathParam("id"), before.asInt()), false));
    }

    private void rename(Context ctx) throws Exception {
        JsonNode body = RequestBodies.readJsonObject(ctx.req(), MAX_SMALL_BODY_BYTES);
        if (!body.has("title")) {
            throw ApiException.badRequest("invalid_request", "'title' is missing: send {\"title\":\"…\"}");
        }
        json(ctx, 200, summary(conversations.rename(ctx.pathParam("id"), stringField(body, "title")), conversations.isRunning(ctx.pathParam("id"))));
    }

    private void message(Context ctx) throws Exception {
        String id = ctx.pathParam("id");
        JsonNode body = RequestBodies.readJsonObject(ctx.req(), RequestBodies.MAX_TURN_BODY_BYTES);
        if (!body.has("content")) {
            throw ApiException.badRequest("invalid_request", "'content' is missing: send {\"content\":\"…\"}");
        }
        streamTurn(ctx, id, stringField(body, "content"));
    }

    /** Starts a turn and follows it; the turn goes on if the client leaves. */
    void streamTurn(Context ctx, String id, String content) throws Exception {
        AgentRun run = conversations.startTurn(id, content);
        new SseWriter(ctx.res()).follow(run.events(), 0);
    }

    private void events(Context ctx) throws Exception {
        Optional<AgentRun> run = conversations.currentOrLastRun(ctx.pathParam("id"));
        if (run.isEmpty()) {
            ctx.status(204); // nothing to follow: EventSource clients stop reconnecting on 204
            return;
        }
        long after = lastEventId(ctx);
        RunEventLog log = run.get().events();
        if (log.finished() && log.framesAfter(after, Duration.ZERO).isEmpty()) {
            ctx.status(204); // everything was seen: an EventSource must stop reconnecting
            return;
        }
        new SseWriter(ctx.res()).follow(log, after);
    }

    private void export(Context ctx) {
        String format = Optional.ofNullable(ctx.queryParam("format")).orElse("json");
        switch (format) {
            case "json" -> json(ctx, 200, conversations.nextRequestMessages(ctx.pathParam("id")));
            case "markdown" -> ctx.status(200).contentType("text/markdown;charset=utf-8")
                    .result(MarkdownExport.of(conversations.exportSource(ctx.pathParam("id")).snapshot()));
            default -> throw ApiException.badRequest("invalid_request", "format must be json or markdown, not " + abbreviate(format));
        }
    }

    private static ObjectNode summary(ConversationRecord record, boolean running) {
        return ConversationSnapshot.summaryJson(record, running);
    }

    private static long lastEventId(Context ctx) {
        String value = ctx.header("Last-Event-ID");
        if (value == null) {
            value = ctx.queryParam("lastEventId");
        }
        if (value == null || value.isBlank()) {
            return 0;
        }
        try {
            return Math.max(0, Long.parseLong(value.strip()));
        } catch (NumberFormatException e) {
            throw ApiException.badRequest("invalid_request", "Last-Event-ID must be an event id (a whole number), not " + abbreviate(value));
        }
    }

    private static String stringField(JsonNode body, String field) {
        JsonNode value = body.get(field);
        if (!value.isTextual()) {
            throw ApiException.badRequest("invalid_request", "'" + field + "' must be a string, not " + AgentRequest.kind(value));
        }
        return value.asText();
    }

    private static int intParam(Context ctx, String name, int fallback, int min, int max) {
        String value = ctx.queryParam(name);
        if (value == null) {
            return fallback;
        }
        try {
            int parsed = Integer.parseInt(value);
            if (parsed >= min && parsed <= max) {
                return parsed;
            }
        } catch (NumberFormatException ignored) {
            // answered below
        }
        throw ApiException.badRequest("invalid_request", name + " must be a whole number from " + min + " to " + max);
    }

    private static String abbreviate(String text) {
        return StorableText.abbreviate(text, 40);
    }

    static void json(Context ctx, int status, JsonNode body) {
        ctx.status(status).contentType("application/json").result(Json.write(body));
    }
}
