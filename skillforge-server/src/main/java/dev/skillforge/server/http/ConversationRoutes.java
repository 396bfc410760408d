package dev.skillforge.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.transcript.StorableText;
import dev.skillforge.server.conversation.ConversationChanges;
import dev.skillforge.server.conversation.ConversationException;
import dev.skillforge.server.conversation.Attachments;
import dev.skillforge.server.conversation.ConversationHost;
import dev.skillforge.server.conversation.Conversations;
import dev.skillforge.server.conversation.Forks;
import dev.skillforge.server.conversation.RunElsewhere;
import dev.skillforge.server.conversation.Turns;
import dev.skillforge.server.conversation.ConversationSnapshot;
import dev.skillforge.server.conversation.MarkdownExport;
import dev.skillforge.server.document.AttachedDocument;
import dev.skillforge.server.document.ImageFormat;
import dev.skillforge.server.document.Documents;
import dev.skillforge.server.document.Upload;
import dev.skillforge.server.document.UploadsJson;
import dev.skillforge.server.exec.Workspace;
import dev.skillforge.server.exec.WorkspaceQuota;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.people.Caller;
import dev.skillforge.server.run.AgentRun;
import dev.skillforge.server.run.RunEventLog;
import dev.skillforge.server.search.SearchQuery;
import dev.skillforge.server.store.ConversationRecord;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.List;
import java.util.Optional;

/**
 * The conversation API: create, list, read, rename, delete; a turn by sending only the new message;
 * re-attaching to a running or just-finished turn ({@code Last-Event-ID} resumes after the last
 * event seen); stop; export. A turn belongs to the server: a client that leaves does not stop it.
 */
public final class ConversationRoutes implements Door {

    private static final int MAX_SMALL_BODY_BYTES = 64 * 1024;

    private final ConversationHost host;
    private final Conversations conversations;
    private final Turns turns;
    private final Forks forks;
    private final Attachments attachments;
    /** Event streams being sent now; a stopping server lets them end before it closes. */
    private final AtomicInteger streams = new AtomicInteger();
    /** The clients following this instance's runs (the stateless route's too). */
    private final SseFollowers followers = new SseFollowers();

    public ConversationRoutes(ConversationHost host, Conversations conversations, Turns turns, Forks forks, Attachments attachments) {
        this.host = host;
        this.conversations = conversations;
        this.turns = turns;
        this.forks = forks;
        this.attachments = attachments;
    }

    /** Whether this instance takes new turns ({@code /readyz}). */
    public boolean ready() {
        return !host.isDraining();
    }

    /**
     * Waits until no event stream is being sent (the clients of finished turns got their last event),
     * up to {@code timeout}; for a graceful stop, after the running turns ended.
     *
     * @return whether they all ended
     */
    public boolean awaitStreams(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (streams.get() > 0) {
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            Thread.sleep(20);
        }
        return true;
    }



    private void workspace(Context ctx) {
        Workspace.Usage usage = conversations.workspace(Callers.of(ctx), ctx.pathParam("id"));
        WorkspaceQuota quota = usage.quota();
        ObjectNode body = Json.object().put("files", usage.files()).put("bytes", usage.bytes()).put("maxFiles", quota.maxFiles())
                .put("maxBytes", quota.maxBytes());
        usage.refusal().ifPresentOrElse(why -> body.put("blocked", why), () -> body.putNull("blocked"));
        json(ctx, 200, body);
    }

    @Override
    public void register(JavalinConfig config) {
        config.routes.post("/api/conversations", this::create);
        config.routes.get("/api/conversations", this::list);
        config.routes.get("/api/conversations/search", this::search);
        config.routes.get("/api/conversations/changes", this::changes);
        config.routes.get("/api/conversations/{id}", ctx -> json(ctx, 200, conversations.snapshotJson(Callers.of(ctx), ctx.pathParam("id"))));
        config.routes.patch("/api/conversations/{id}", this::rename);
        config.routes.delete("/api/conversations/{id}", ctx -> {
            conversations.delete(Callers.of(ctx), ctx.pathParam("id"));
            ctx.status(204);
        });
        config.routes.post("/api/conversations/{id}/messages", this::message);
        config.routes.get("/api/conversations/{id}/events", this::events);
        config.routes.post("/api/conversations/{id}/stop", ctx -> json(ctx, 200, Json.object().put("stopped", turns.stop(Callers.of(ctx), ctx.pathParam("id")))));
        config.routes.get("/api/conversations/{id}/export", this::export);
        config.routes.get("/api/conversations/{id}/attachments/{sha256}", this::download);
        config.routes.get("/api/conversations/{id}/attachments/{sha256}/text", ctx -> ctx.status(200)
                .contentType("text/plain; charset=utf-8").result(attachments.attachmentText(Callers.of(ctx), ctx.pathParam("id"), ctx.pathParam("sha256"))));
        config.routes.post("/api/conversations/{id}/fork", this::fork);
        config.routes.post("/api/conversations/{id}/select", ctx -> json(ctx, 200,
                summary(conversations.select(Callers.of(ctx), ctx.pathParam("id")), turns.isRunning(ctx.pathParam("id")))));
        config.routes.get("/api/conversations/{id}/workspace", this::workspace);
        config.routes.delete("/api/conversations/{id}/workspace", ctx -> {
            conversations.clearWorkspace(Callers.of(ctx), ctx.pathParam("id"));
            ctx.status(204);
        });
        config.routes.exception(ConversationException.class, (e, ctx) -> {
            int status = switch (e.kind()) {
                case NOT_FOUND -> 404;
                case BUSY -> 409;
                case INVALID -> 400;
                case TOO_LARGE -> 413;
                case UNAVAILABLE -> 503;
                case PROVIDER_GONE -> 409;
                case STOPPING -> 503;
                case BUDGET_SPENT -> 402;
            };
            String code = switch (e.kind()) {
                case NOT_FOUND -> "not_found";
                case BUSY -> "turn_in_progress";
                case INVALID -> "invalid_request";
                case TOO_LARGE -> "message_too_large";
                case UNAVAILABLE -> "storage_unavailable";
                case PROVIDER_GONE -> "provider_not_configured";
                case STOPPING -> "server_stopping";
                case BUDGET_SPENT -> "budget_spent";
            };
            ApiServer.error(ctx, status, code, e.getMessage());
        });
    }

    private void create(Context ctx) throws Exception {
        JsonNode body = RequestBodies.readJsonObjectOrEmpty(ctx.req(), MAX_SMALL_BODY_BYTES);
        String title = body.has("title") ? stringField(body, "title") : null;
        String provider = body.has("provider") ? stringField(body, "provider") : null;
        String model = body.has("model") ? stringField(body, "model") : null;
        ConversationRecord record = conversations.create(Callers.of(ctx), title, provider, model);
        json(ctx, 201, summary(record, false));
    }

    private void list(Context ctx) {
        int limit = intParam(ctx, "limit", 20, 1, 100);
        int offset = intParam(ctx, "offset", 0, 0, Integer.MAX_VALUE);
        Caller caller = Callers.of(ctx);
        List<ConversationRecord> page = conversations.list(caller, limit, offset);
        ObjectNode body = Json.object();
        ArrayNode items = body.putArray("conversations");
        page.forEach(record -> items.add(summary(record, turns.isRunning(record.id()))));
        body.put("total", conversations.count(caller)).put("limit", limit).put("offset", offset);
        json(ctx, 200, body);
    }

    /** One stream per page: every change to the conversations here ({@link ConversationChanges}), until the client or the server leaves. */
    private void changes(Context ctx) throws Exception {
        try (ConversationChanges.Subscription subscription = conversations.changes().subscribe(Callers.of(ctx).personId())) {
            new SseWriter(ctx.res()).follow(subscription);
        }
    }

    /** Ends the pages' change streams and the runs' followers: the server stops. */
    @Override
    public void close() {
        conversations.changes().close();
        followers.close();
    }

    /** Follows {@code log} after {@code afterId} on {@code ctx}'s response without a thread: {@link SseFollowers#follow}. */
    CompletableFuture<Boolean> follow(Context ctx, RunEventLog log, long afterId) {
        return followers.follow(ctx, log, afterId);
    }

    /** {@code ?q=WORDS}: the conversations that have every term, most recently updated first, each with where ({@link SearchJson}). */
    private void search(Context ctx) {
        String text = Optional.ofNullable(ctx.queryParam("q")).orElse("");
        SearchQuery query;
        try {
            query = SearchQuery.parse(text);
        } catch (SearchQuery.InvalidQueryException e) {
            if (!e.noWord()) {
                throw ApiException.badRequest("invalid_request", e.getMessage());
            }
            query = null; // no word (empty, or punctuation alone) finds nothing, as it always has
        }
        int limit = intParam(ctx, "limit", 20, 1, 100);
        ObjectNode body = Json.object();
        ArrayNode items = body.putArray("conversations");
        List<Conversations.SearchResult> results = query == null ? List.of() : conversations.search(Callers.of(ctx), query, limit);
        for (Conversations.SearchResult found : results) {
            items.add(SearchJson.where(summary(found.record(), turns.isRunning(found.record().id())), found));
        }
        body.put("q", text).put("limit", limit);
        json(ctx, 200, body);
    }

    /** {@code {"beforeTurn": N}}: a new conversation with this one's turns before N (an edited message, a regenerated answer). */
    private void fork(Context ctx) throws Exception {
        JsonNode body = RequestBodies.readJsonObject(ctx.req(), MAX_SMALL_BODY_BYTES);
        JsonNode before = body.get("beforeTurn");
        if (before == null || !before.canConvertToInt() || !before.isIntegralNumber()) {
            throw ApiException.badRequest("invalid_request", "'beforeTurn' must be a turn number: send {\"beforeTurn\": N}");
        }
        json(ctx, 201, summary(forks.fork(Callers.of(ctx), ctx.pathParam("id"), before.asInt()), false));
    }

    private void rename(Context ctx) throws Exception {
        JsonNode body = RequestBodies.readJsonObject(ctx.req(), MAX_SMALL_BODY_BYTES);
        if (!body.has("title")) {
            throw ApiException.badRequest("invalid_request", "'title' is missing: send {\"title\":\"…\"}");
        }
        json(ctx, 200, summary(conversations.rename(Callers.of(ctx), ctx.pathParam("id"), stringField(body, "title")), turns.isRunning(ctx.pathParam("id"))));
    }

    /** A new message as JSON ({@code content}, {@code attachments}) or as {@code multipart/form-data} (the page's file picker). */
    private void message(Context ctx) throws Exception {
        String id = ctx.pathParam("id");
        String type = ctx.header("Content-Type");
        if (type != null && ContentTypeCheck.mediaType(type).equals("multipart/form-data")) {
            MultipartMessage form = MultipartMessage.parse(type, RequestBodies.readLimited(ctx.req(), RequestBodies.MAX_UPLOAD_BODY_BYTES));
            streamTurn(ctx, id, form.content(), readDocuments(ctx, List.of(form.attachments())).getFirst());
            return;
        }
        JsonNode body = RequestBodies.readJsonObject(ctx.req(), RequestBodies.MAX_UPLOAD_BODY_BYTES);
        List<AttachedDocument> documents = readDocuments(ctx, List.of(UploadsJson.fromJson(body.get("attachments"), "attachments"))).getFirst();
        if (!body.has("content") && documents.isEmpty()) {
            throw ApiException.badRequest("invalid_request", "'content' is missing: send {\"content\":\"…\"}");
        }
        streamTurn(ctx, id, body.has("content") ? stringField(body, "content") : "", documents);
    }

    /**
     * The files of each message, read once the request's body is: their reading stops if the client goes away
     * meanwhile ({@link ClientWatch}).
     */
    static List<List<AttachedDocument>> readDocuments(Context ctx, List<List<Upload>> messages) {
        if (messages.stream().allMatch(List::isEmpty)) {
            return Documents.readMessages(messages, new Cancellation()); // nothing to read: nothing to watch for
        }
        try (ClientWatch watch = ClientWatch.start(ctx)) {
            return Documents.readMessages(messages, watch.gone());
        }
    }

    /** Starts a turn and follows it; the turn goes on if the client leaves. */
    void streamTurn(Context ctx, String id, String content, List<AttachedDocument> documents) throws Exception {
        // Counted before the turn starts: a drain beginning now either sees this stream or refuses the turn.
        streams.incrementAndGet();
        try {
            AgentRun run = turns.startTurn(Callers.of(ctx), id, content, documents);
            counted(follow(ctx, run.events(), 0));
        } catch (RuntimeException e) {
            streams.decrementAndGet();
            throw e;
        }
    }

    /** Counts a stream that {@link #streamTurn} or {@link #events} counted in as ended when {@code followed} ends. */
    private void counted(CompletableFuture<Boolean> followed) {
        followed.whenComplete((toTheEnd, failure) -> streams.decrementAndGet());
    }

    /**
     * An attached file as it was uploaded. Always a download ({@code Content-Disposition: attachment}), and a
     * type a browser will not run (an attached page or SVG comes back as text): files are the user's, not the server's.
     */
    private void download(Context ctx) {
        Attachments.AttachmentDownload file = attachments.attachment(Callers.of(ctx), ctx.pathParam("id"), ctx.pathParam("sha256"));
        // A PDF or an image (its bytes were checked to be what its type says) as itself, anything else as text: never a page.
        String type = file.mediaType().equals("application/pdf") || ImageFormat.ofMediaType(file.mediaType()).isPresent()
                ? file.mediaType() : "text/plain; charset=utf-8";
        ctx.status(200).contentType(type)
                .header("Content-Disposition", "attachment; filename*=UTF-8''" + URLEncoder.encode(file.name(), StandardCharsets.UTF_8)
                        .replace("+", "%20"))
                .result(file.data());
    }

    private void events(Context ctx) throws Exception {
        long after = lastEventId(ctx);
        switch (turns.follow(Callers.of(ctx), ctx.pathParam("id"), after)) {
            case Turns.Followed.Elsewhere(RunElsewhere elsewhere) -> {
                streams.incrementAndGet();
                try (elsewhere) {
                    new SseWriter(ctx.res()).follow(elsewhere);
                } finally {
                    streams.decrementAndGet();
                }
            }
            case Turns.Followed.Here(RunEventLog log) when !log.read(after).over() -> {
                streams.incrementAndGet();
                counted(follow(ctx, log, after));
            }
            // nothing to follow, or everything was seen: EventSource clients stop reconnecting on 204
            case Turns.Followed.Here here -> ctx.status(204);
            case Turns.Followed.Nothing nothing -> ctx.status(204);
        }
    }

    private void export(Context ctx) {
        String format = Optional.ofNullable(ctx.queryParam("format")).orElse("json");
        switch (format) {
            case "json" -> json(ctx, 200, conversations.nextRequestMessages(Callers.of(ctx), ctx.pathParam("id")));
            case "markdown" -> ctx.status(200).contentType("text/markdown;charset=utf-8")
                    .result(MarkdownExport.of(conversations.exportSource(Callers.of(ctx), ctx.pathParam("id")).snapshot()));
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
