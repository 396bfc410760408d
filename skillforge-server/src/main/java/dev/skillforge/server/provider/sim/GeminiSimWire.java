package dev.skillforge.server.provider.sim;

import dev.skillforge.server.cache.CacheRule;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.server.json.Json;
import io.javalin.http.Context;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The simulated provider in Gemini's wire format: {@code POST /v1beta/models/{model}:streamGenerateContent?alt=sse},
 * events framed {@code data: {json}} with CRLF CRLF as Google frames them, the stream ending with the
 * body after a chunk with {@code finishReason}.
 *
 * <ul>
 *   <li>Implicit caching by Google's documented rule ({@link CacheRule#forGeminiModel}: 1024 prompt tokens
 *       at least for Flash models and the simulated one, 4096 for Pro), per model, no key (implicit
 *       caching has none), reported as {@code usageMetadata.cachedContentTokenCount}.</li>
 *   <li>Zero counts are left out of {@code usageMetadata}, as Google's proto3 JSON does.</li>
 *   <li>A scripted reply's reasoning streams as thought parts; its thought signature comes on a final
 *       empty-text part; its sources as {@code groundingMetadata.groundingChunks}.</li>
 *   <li>Like Gemini 3, it answers 400 when a request carries back one of its signed answers without
 *       the signature it was given.</li>
 *   <li>A prompt longer than the context window is refused as Gemini refuses it: 400 {@code INVALID_ARGUMENT}.</li>
 *   <li>Errors are Google's shape: {@code {"error": {"code", "message", "status"}}}.</li>
 * </ul>
 */
final class GeminiSimWire {

    static final String FORMAT = "gemini";
    private static final String METHOD = "streamGenerateContent";

    private final SimResponder responder;
    private final Consumer<SimRequest> requests;
    private final Runnable onAbort;
    private final AtomicLong ids;
    private final int contextWindow;
    private final Map<String, PrefixCache> caches = new ConcurrentHashMap<>();
    /** The signatures this simulation gave, by the text of the answer they signed. */
    private final Map<String, Set<String>> signatures = new ConcurrentHashMap<>();

    GeminiSimWire(SimResponder responder, Consumer<SimRequest> requests, Runnable onAbort, AtomicLong ids, int contextWindow) {
        this.responder = responder;
        this.requests = requests;
        this.onAbort = onAbort;
        this.ids = ids;
        this.contextWindow = contextWindow;
    }

    void handle(Context ctx) {
        String target = ctx.pathParam("target");
        int colon = target.lastIndexOf(':');
        if (colon <= 0 || !target.substring(colon + 1).equals(METHOD)) {
            error(ctx, 404, "The simulation serves only models/{model}:" + METHOD + "?alt=sse, not " + target);
            return;
        }
        String model = target.substring(0, colon);
        if (!"sse".equals(ctx.queryParam("alt"))) {
            error(ctx, 400, "The simulation streams only as Server-Sent Events: add ?alt=sse");
            return;
        }
        String body = ctx.body();
        JsonNode json;
        try {
            json = Json.parse(body);
        } catch (IOException e) {
            error(ctx, 400, "Invalid JSON payload received. " + e.getMessage());
            return;
        }
        JsonNode contents = json == null ? null : json.get("contents");
        if (contents == null || !contents.isArray() || contents.isEmpty()) {
            error(ctx, 400, "* GenerateContentRequest.contents: contents is not specified");
            return;
        }
        List<TokenCounter.Message> messages = new ArrayList<>();
        List<TokenCounter.Message> tokenView = new ArrayList<>();
        String system = text(json.path("systemInstruction").path("parts"), false);
        if (!system.isEmpty()) {
            messages.add(new TokenCounter.Message("system", system));
            tokenView.add(new TokenCounter.Message("system", system));
        }
        for (int i = 0; i < contents.size(); i++) {
            JsonNode content = contents.get(i);
            String role = Json.text(content, "role");
            JsonNode parts = content.get("parts");
            if (!"user".equals(role) && !"model".equals(role)) {
                error(ctx, 400, "* GenerateContentRequest.contents[" + i + "].role: use user or model");
                return;
            }
            if (parts == null || !parts.isArray() || parts.isEmpty()) {
                error(ctx, 400, "* GenerateContentRequest.contents[" + i + "].parts: contents.parts must not be empty");
                return;
            }
            String text = text(parts, false);
            if (role.equals("model") && !carriesItsSignature(text, parts)) {
                error(ctx, 400, "Unable to process input: contents[" + i + "] is a signed model turn sent back without"
                        + " its thought_signature (simulated Gemini 3 check)");
                return;
            }
            String speaker = role.equals("model") ? "assistant" : "user";
            List<SimImage> images;
            try {
                images = images(parts, "contents[" + i + "].parts");
            } catch (IllegalArgumentException e) {
                error(ctx, 400, "Unable to process input image: " + e.getMessage());
                return;
            }
            messages.add(new TokenCounter.Message(speaker, text, images));
            tokenView.add(new TokenCounter.Message(speaker, text(parts, true), images));
        }
        int[] prompt = TokenCounter.promptTokens(tokenView);
        boolean tooLong = prompt.length > contextWindow;
        // A refused prompt is never read, so nothing of it is cached.
        long cached = tooLong ? 0 : caches.computeIfAbsent(model, m -> new PrefixCache(CacheRule.forGeminiModel(m))).lookUpAndStore("", prompt);
        String path = ctx.path() + (ctx.queryString() == null ? "" : "?" + ctx.queryString());
        requests.accept(new SimRequest(body, json, null, prompt.length, cached, FORMAT, path, SimProviderServer.headers(ctx)));
        if (tooLong) {
            error(ctx, 400, "The input token count (" + prompt.length + ") exceeds the maximum number of tokens allowed ("
                    + contextWindow + ").");
            return;
        }

        SimReply reply = responder.reply(messages);
        if (reply.fault() instanceof SimReply.HttpError httpError) {
            if (httpError.retryAfter() != null) {
                ctx.header("Retry-After", httpError.retryAfter());
            }
            error(ctx, httpError.status(), httpError.message());
            return;
        }
        if (reply.thoughtSignature() != null) {
            signatures.computeIfAbsent(reply.text(), t -> ConcurrentHashMap.newKeySet()).add(reply.thoughtSignature());
        }
        stream(ctx, model, reply, prompt.length, cached);
    }

    /** A model turn whose text is one this simulation signed must hold one of the signatures it gave for it. */
    private boolean carriesItsSignature(String text, JsonNode parts) {
        Set<String> given = signatures.get(text);
        if (given == null) {
            return true;
        }
        for (JsonNode part : parts) {
            String signature = Json.text(part, "thoughtSignature");
            if (signature != null && given.contains(signature)) {
                return true;
            }
        }
        return false;
    }

    private void stream(Context ctx, String model, SimReply reply, long promptTokens, long cached) {
        String id = "sim-" + ids.incrementAndGet();
        long thoughts = 0;
        long candidates = 0;
        try {
            SimEvents events = SimEvents.open(ctx, SimEvents.CRLF, message -> {
                ObjectNode body = Json.object();
                body.putObject("error").put("code", 500).put("message", message).put("status", "INTERNAL");
                return body;
            });
            for (String reasoning : reply.reasoning()) {
                SimProviderServer.pause(reply.delay());
                thoughts += TokenCounter.count(reasoning);
                ObjectNode part = Json.object().put("text", reasoning).put("thought", true);
                events.send(chunk(id, model, List.of(part), null, usage(promptTokens, candidates, thoughts, cached), null));
            }
            int sent = 0;
            for (String text : reply.chunks()) {
                if (events.faultNow(reply.fault(), sent)) {
                    return;
                }
                SimProviderServer.pause(reply.delay());
                candidates += TokenCounter.count(text);
                events.send(chunk(id, model, List.of(Json.object().put("text", text)), null,
                        usage(promptTokens, candidates, thoughts, cached), null));
                sent++;
            }
            if (events.faultNow(reply.fault(), sent)) {
                return;
            }
            // Counts of the whole text, as the OpenAI side reports them (chunk counts can differ at the seams).
            candidates = TokenCounter.count(reply.text());
            thoughts = TokenCounter.count(String.join("", reply.reasoning()));
            ObjectNode last = Json.object().put("text", "");
            if (reply.thoughtSignature() != null) {
                last.put("thoughtSignature", reply.thoughtSignature());
            }
            ObjectNode grounding = null;
            if (!reply.sources().isEmpty()) {
                grounding = Json.object();
                ArrayNode chunks = grounding.putArray("groundingChunks");
                for (SimReply.Source source : reply.sources()) {
                    chunks.addObject().putObject("web").put("uri", source.url()).put("title", source.title());
                }
            }
            String finish = reply.finishReason() == null ? "STOP" : reply.finishReason();
            events.send(chunk(id, model, List.of(last), finish, usage(promptTokens, candidates, thoughts, cached), grounding));
        } catch (IOException e) {
            onAbort.run();
        }
    }

    private static String chunk(String id, String model, List<ObjectNode> parts, String finishReason, ObjectNode usage,
                                ObjectNode grounding) {
        ObjectNode chunk = Json.object();
        ObjectNode candidate = chunk.putArray("candidates").addObject();
        ObjectNode content = candidate.putObject("content");
        ArrayNode partArray = content.putArray("parts");
        parts.forEach(partArray::add);
        content.put("role", "model");
        if (finishReason != null) {
            candidate.put("finishReason", finishReason);
        }
        if (grounding != null) {
            candidate.set("groundingMetadata", grounding);
        }
        candidate.put("index", 0);
        chunk.set("usageMetadata", usage);
        chunk.put("modelVersion", model).put("responseId", id);
        return Json.write(chunk);
    }

    /** Gemini's usage, zero counts left out as proto3 JSON leaves them out. */
    private static ObjectNode usage(long prompt, long candidates, long thoughts, long cached) {
        ObjectNode usage = Json.object();
        usage.put("promptTokenCount", prompt);
        if (candidates > 0) {
            usage.put("candidatesTokenCount", candidates);
        }
        usage.put("totalTokenCount", prompt + candidates + thoughts);
        if (cached > 0) {
            usage.put("cachedContentTokenCount", cached);
        }
        if (thoughts > 0) {
            usage.put("thoughtsTokenCount", thoughts);
        }
        return usage;
    }

    /**
     * The text of some parts: the non-thought text, for the responder (as the OpenAI side sees a
     * message); or, for counting tokens, every part's text and the JSON of the parts without text
     * (a video link), signatures aside.
     */
    private static String text(JsonNode parts, boolean forTokens) {
        StringBuilder text = new StringBuilder();
        for (JsonNode part : parts) {
            String piece = Json.text(part, "text");
            if (piece != null) {
                if (forTokens || !part.path("thought").asBoolean(false)) {
                    text.append(piece);
                }
            } else if (forTokens && part.isObject() && inlineData(part) == null) {
                text.append(Json.write(part)); // an image counts as its marker (TokenCounter.Message), not its base64
            }
        }
        return text.toString();
    }

    /** The images of some parts: {@code inline_data} ({@code mime_type}, {@code data}), or the camelCase spelling Gemini also reads. */
    private static List<SimImage> images(JsonNode parts, String where) {
        List<SimImage> images = new ArrayList<>();
        for (int k = 0; k < parts.size(); k++) {
            JsonNode blob = inlineData(parts.get(k));
            if (blob != null) {
                String type = Json.text(blob, "mime_type") != null ? Json.text(blob, "mime_type") : Json.text(blob, "mimeType");
                images.add(SimImage.read(type, Json.text(blob, "data"), where + "[" + k + "].inline_data"));
            }
        }
        return images;
    }

    private static JsonNode inlineData(JsonNode part) {
        JsonNode blob = part.get("inline_data");
        return blob != null ? blob : part.get("inlineData");
    }

    static void error(Context ctx, int status, String message) {
        ObjectNode body = Json.object();
        body.putObject("error").put("code", status).put("message", message).put("status", status(status));
        ctx.status(status).contentType("application/json").result(Json.write(body));
    }

    private static String status(int code) {
        return switch (code) {
            case 400 -> "INVALID_ARGUMENT";
            case 401 -> "UNAUTHENTICATED";
            case 403 -> "PERMISSION_DENIED";
            case 404 -> "NOT_FOUND";
            case 429 -> "RESOURCE_EXHAUSTED";
            case 503 -> "UNAVAILABLE";
            case 504 -> "DEADLINE_EXCEEDED";
            default -> code >= 500 ? "INTERNAL" : "FAILED_PRECONDITION";
        };
    }
}
