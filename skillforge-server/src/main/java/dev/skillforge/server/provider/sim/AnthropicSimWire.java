package dev.skillforge.server.provider.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.server.json.Json;
import io.javalin.http.Context;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The simulated provider in Anthropic's Messages format: {@code POST /v1/messages} with {@code stream: true},
 * events framed {@code event: NAME} / {@code data: {json}} as Anthropic frames them, from {@code message_start} to
 * {@code message_stop}.
 *
 * <ul>
 *   <li>The prompt cache by Anthropic's documented rule ({@link AnthropicPromptCache}): the top-level
 *       {@code cache_control} puts the breakpoint on the last block, block-level markers (at most four) where they
 *       are; a minimum per model, the 20-block look-back, writes reported apart from reads
 *       ({@code cache_creation_input_tokens}, by TTL in {@code cache_creation}), expiry after the TTL on the
 *       simulation's own clock.</li>
 *   <li>A scripted reply's reasoning streams as a signed thinking block ({@code thinking_delta}s, then a
 *       {@code signature_delta}), an optional {@code redacted_thinking} block after it, then the text.</li>
 *   <li>Like Anthropic, it refuses (400) a thinking block sent back without its signature, or with a signature it
 *       did not give for that thinking after that same conversation (a changed prefix, another model), and a
 *       redacted block it did not give there; an empty text block; a request without {@code anthropic-version} or
 *       {@code max_tokens}; a prompt longer than the context window.</li>
 *   <li>Errors are Anthropic's shape: {@code {"type": "error", "error": {"type", "message"}}}.</li>
 * </ul>
 */
final class AnthropicSimWire {

    static final String FORMAT = "anthropic";
    static final int MAX_BREAKPOINTS = 4;

    private final SimResponder responder;
    private final Consumer<SimRequest> requests;
    private final Runnable onAbort;
    private final AtomicLong ids;
    private final int contextWindow;
    private final AnthropicPromptCache cache;
    /** What each signature (or redacted block's data) this simulation gave vouches for: model, conversation before it, thinking. */
    private final Map<String, String> signed = new ConcurrentHashMap<>();

    AnthropicSimWire(SimResponder responder, Consumer<SimRequest> requests, Runnable onAbort, AtomicLong ids, int contextWindow,
                     InstantSource clock) {
        this.responder = responder;
        this.requests = requests;
        this.onAbort = onAbort;
        this.ids = ids;
        this.contextWindow = contextWindow;
        this.cache = new AnthropicPromptCache(clock);
    }

    /** A request refused before the model saw it. */
    private static final class Refused extends Exception {
        Refused(String message) {
            super(message);
        }
    }

    /** The prompt as the cache sees it, and as the responder reads it. */
    private record Prompt(List<AnthropicPromptCache.Block> blocks, List<AnthropicPromptCache.Breakpoint> breakpoints,
                          List<TokenCounter.Message> messages, int tokens) {
    }

    void handle(Context ctx) {
        if (ctx.header("anthropic-version") == null) {
            error(ctx, 400, "invalid_request_error", "anthropic-version: header is required");
            return;
        }
        String body = ctx.body();
        JsonNode json;
        Prompt prompt;
        String model;
        try {
            json = Json.parse(body);
            if (json == null || !json.isObject()) {
                throw new Refused("the request body must be a JSON object");
            }
            model = Json.text(json, "model");
            if (model == null) {
                throw new Refused("model: Field required");
            }
            if (!json.path("max_tokens").canConvertToInt() || json.get("max_tokens").asInt() < 1) {
                throw new Refused("max_tokens: Field required (a whole number of at least 1)");
            }
            prompt = prompt(json, model);
        } catch (IOException e) {
            error(ctx, 400, "invalid_request_error", "invalid JSON: " + e.getMessage());
            return;
        } catch (Refused e) {
            error(ctx, 400, "invalid_request_error", e.getMessage());
            return;
        }
        boolean tooLong = prompt.tokens() > contextWindow;
        // A refused prompt is never read, so nothing of it is cached.
        AnthropicPromptCache.Outcome outcome = tooLong ? new AnthropicPromptCache.Outcome(0, 0, 0, prompt.tokens())
                : cache.lookUpAndStore(model, prompt.blocks(), prompt.breakpoints());
        requests.accept(new SimRequest(body, json, null, prompt.tokens(), outcome.read(), FORMAT, ctx.path(),
                SimProviderServer.headers(ctx), outcome.written()));
        if (tooLong) {
            error(ctx, 400, "invalid_request_error", "prompt is too long: " + prompt.tokens() + " tokens > " + contextWindow + " maximum");
            return;
        }
        SimReply reply = responder.reply(prompt.messages());
        if (reply.fault() instanceof SimReply.HttpError httpError) {
            if (httpError.retryAfter() != null) {
                ctx.header("Retry-After", httpError.retryAfter());
            }
            error(ctx, httpError.status(), errorType(httpError.status()), httpError.message());
            return;
        }
        String after = prompt.blocks().isEmpty() ? "" : prompt.blocks().getLast().prefixDigest();
        String signature = null;
        if (!reply.reasoning().isEmpty()) {
            signature = reply.thoughtSignature() != null ? reply.thoughtSignature() : "sim-signature-" + ids.incrementAndGet();
            signed.put(signature, vouch(model, after, String.join("", reply.reasoning())));
        }
        if (reply.redactedThinking() != null) {
            signed.put(reply.redactedThinking(), vouch(model, after, ""));
        }
        stream(ctx, model, reply, signature, outcome);
    }

    /** Reads and checks the prompt: its blocks in order (system, then each message's), breakpoints, the signatures sent back. */
    private Prompt prompt(JsonNode json, String model) throws Refused {
        List<AnthropicPromptCache.Block> blocks = new ArrayList<>();
        List<AnthropicPromptCache.Breakpoint> breakpoints = new ArrayList<>();
        List<TokenCounter.Message> messages = new ArrayList<>();
        MessageDigest prefix = sha256();
        int[] tokens = {0};
        JsonNode system = json.get("system");
        StringBuilder systemText = new StringBuilder();
        if (system != null && system.isTextual()) {
            addBlock(blocks, prefix, tokens, "system", true, Json.object().put("type", "text").put("text", system.asText()));
            systemText.append(system.asText());
        } else if (system != null && system.isArray()) {
            boolean first = true;
            for (JsonNode block : system) {
                markBreakpoint(block, blocks.size(), breakpoints);
                addBlock(blocks, prefix, tokens, "system", first, block);
                systemText.append(Json.text(block, "text") == null ? "" : Json.text(block, "text"));
                first = false;
            }
        }
        if (!systemText.isEmpty()) {
            messages.add(new TokenCounter.Message("system", systemText.toString()));
        }
        JsonNode list = json.get("messages");
        if (list == null || !list.isArray() || list.isEmpty()) {
            throw new Refused("messages: at least one message is required");
        }
        for (int i = 0; i < list.size(); i++) {
            JsonNode message = list.get(i);
            String role = Json.text(message, "role");
            if (!"user".equals(role) && !"assistant".equals(role)) {
                throw new Refused("messages." + i + ".role: Input should be 'user' or 'assistant'");
            }
            String before = blocks.isEmpty() ? "" : blocks.getLast().prefixDigest();
            JsonNode content = message.get("content");
            List<JsonNode> parts = new ArrayList<>();
            if (content != null && content.isTextual()) {
                parts.add(Json.object().put("type", "text").put("text", content.asText()));
            } else if (content != null && content.isArray() && !content.isEmpty()) {
                content.forEach(parts::add);
            } else {
                throw new Refused("messages." + i + ".content: a string or a non-empty list of content blocks is required");
            }
            StringBuilder text = new StringBuilder();
            List<SimImage> images = new ArrayList<>();
            for (int k = 0; k < parts.size(); k++) {
                JsonNode block = parts.get(k);
                String where = "messages." + i + ".content." + k;
                checkBlock(block, where, role, model, before);
                if ("text".equals(Json.text(block, "type"))) {
                    text.append(Json.text(block, "text"));
                }
                if ("image".equals(Json.text(block, "type"))) {
                    images.add(image(block, where, role));
                }
                markBreakpoint(block, blocks.size(), breakpoints);
                addBlock(blocks, prefix, tokens, role, k == 0, block);
            }
            messages.add(new TokenCounter.Message(role, text.toString(), images));
        }
        if (breakpoints.size() > MAX_BREAKPOINTS) {
            throw new Refused("A maximum of " + MAX_BREAKPOINTS + " blocks with cache_control may be provided. Found " + breakpoints.size() + ".");
        }
        if (json.get("cache_control") instanceof ObjectNode automatic) {
            breakpoints.add(new AnthropicPromptCache.Breakpoint(blocks.size() - 1, ttl(automatic)));
        }
        return new Prompt(blocks, breakpoints, messages, tokens[0]);
    }

    /** An {@code image} block: a person's, with a {@code base64} source whose bytes are its {@code media_type}. */
    private static SimImage image(JsonNode block, String where, String role) throws Refused {
        if (!"user".equals(role)) {
            throw new Refused(where + ": image blocks may only be sent in user messages");
        }
        JsonNode source = block.path("source");
        if (!"base64".equals(Json.text(source, "type"))) {
            throw new Refused(where + ".source.type: the simulation reads only base64 sources");
        }
        try {
            return SimImage.read(Json.text(source, "media_type"), Json.text(source, "data"), where + ".source.base64");
        } catch (IllegalArgumentException e) {
            throw new Refused(e.getMessage());
        }
    }

    /** Anthropic's checks of a block sent in a message: text not empty, thinking signed by us for exactly this conversation. */
    private void checkBlock(JsonNode block, String where, String role, String model, String before) throws Refused {
        String type = Json.text(block, "type");
        if (type == null) {
            throw new Refused(where + ".type: Field required");
        }
        switch (type) {
            case "text" -> {
                String text = Json.text(block, "text");
                if (text == null || text.isEmpty()) {
                    throw new Refused(where + ": text content blocks must be non-empty");
                }
            }
            case "thinking" -> {
                if (!"assistant".equals(role)) {
                    throw new Refused(where + ": thinking blocks may only be sent in assistant messages");
                }
                String signature = Json.text(block, "signature");
                if (signature == null || signature.isEmpty()) {
                    throw new Refused(where + ".thinking.signature: Field required");
                }
                String thinking = Json.text(block, "thinking");
                String vouched = signed.get(signature);
                if (vouched == null || !vouched.equals(vouch(model, before, thinking == null ? "" : thinking))) {
                    throw new Refused(where + ": Invalid `signature` in `thinking` block");
                }
            }
            case "redacted_thinking" -> {
                String data = Json.text(block, "data");
                String vouched = data == null ? null : signed.get(data);
                if (vouched == null || !vouched.equals(vouch(model, before, ""))) {
                    throw new Refused(where + ": Invalid `data` in `redacted_thinking` block");
                }
            }
            default -> {
                // other block types are not checked here
            }
        }
    }

    private static void markBreakpoint(JsonNode block, int index, List<AnthropicPromptCache.Breakpoint> breakpoints) {
        if (block.get("cache_control") instanceof ObjectNode control) {
            breakpoints.add(new AnthropicPromptCache.Breakpoint(index, ttl(control)));
        }
    }

    private static Duration ttl(ObjectNode control) {
        return "1h".equals(Json.text(control, "ttl")) ? Duration.ofHours(1) : Duration.ofMinutes(5);
    }

    /**
     * Adds a block: its tokens (a role marker before a message's first block, then its text), and the digest of the
     * prompt up to it, over the block as sent without its cache marker (markers are not part of what is cached).
     */
    private static void addBlock(List<AnthropicPromptCache.Block> blocks, MessageDigest prefix, int[] tokens, String role, boolean first,
                                 JsonNode block) {
        ObjectNode unmarked = block.isObject() ? ((ObjectNode) block).deepCopy() : Json.object();
        unmarked.remove("cache_control");
        String canonical = (first ? "<|" + role + "|>\n" : "") + Json.write(unmarked);
        prefix.update(canonical.getBytes(StandardCharsets.UTF_8));
        String text = switch (String.valueOf(Json.text(unmarked, "type"))) {
            case "text" -> Json.text(unmarked, "text");
            case "thinking" -> Json.text(unmarked, "thinking");
            case "redacted_thinking" -> Json.text(unmarked, "data");
            case "image" -> imageMarker(unmarked); // its marker, not its base64 (the prefix digest above still holds the bytes)
            default -> Json.write(unmarked);
        };
        int count = TokenCounter.encode((first ? "<|" + role + "|>\n" : "") + (text == null ? "" : text)).length;
        tokens[0] += count;
        blocks.add(new AnthropicPromptCache.Block(count, digestSoFar(prefix)));
    }

    private static String imageMarker(JsonNode block) {
        JsonNode source = block.path("source");
        try {
            return SimImage.read(Json.text(source, "media_type"), Json.text(source, "data"), "image").marker();
        } catch (IllegalArgumentException checkedAlready) {
            return Json.write(block);
        }
    }

    private void stream(Context ctx, String model, SimReply reply, String signature, AnthropicPromptCache.Outcome outcome) {
        String id = "msg_sim_" + ids.incrementAndGet();
        try {
            SimEvents events = SimEvents.open(ctx, SimEvents.LF, message -> errorBody("overloaded_error", message));
            ObjectNode start = Json.object().put("type", "message_start");
            ObjectNode message = start.putObject("message");
            message.put("id", id).put("type", "message").put("role", "assistant").put("model", model);
            message.putArray("content");
            message.putNull("stop_reason").putNull("stop_sequence");
            ObjectNode usage = message.putObject("usage");
            usage.put("input_tokens", outcome.plain()).put("cache_creation_input_tokens", outcome.written())
                    .put("cache_read_input_tokens", outcome.read());
            usage.putObject("cache_creation").put("ephemeral_5m_input_tokens", outcome.written() - outcome.writtenForAnHour())
                    .put("ephemeral_1h_input_tokens", outcome.writtenForAnHour());
            usage.put("output_tokens", 1);
            events.send("message_start", Json.write(start));
            int index = 0;
            if (!reply.reasoning().isEmpty()) {
                events.send("content_block_start", blockStart(index, Json.object().put("type", "thinking").put("thinking", "").put("signature", "")));
                events.send("ping", "{\"type\":\"ping\"}");
                for (String reasoning : reply.reasoning()) {
                    SimProviderServer.pause(reply.delay());
                    events.send("content_block_delta", delta(index, Json.object().put("type", "thinking_delta").put("thinking", reasoning)));
                }
                events.send("content_block_delta", delta(index, Json.object().put("type", "signature_delta").put("signature", signature)));
                events.send("content_block_stop", blockStop(index++));
            }
            if (reply.redactedThinking() != null) {
                events.send("content_block_start", blockStart(index, Json.object().put("type", "redacted_thinking").put("data", reply.redactedThinking())));
                events.send("content_block_stop", blockStop(index++));
            }
            events.send("content_block_start", blockStart(index, Json.object().put("type", "text").put("text", "")));
            int sent = 0;
            for (String text : reply.chunks()) {
                if (events.faultNow(reply.fault(), sent)) {
                    return;
                }
                SimProviderServer.pause(reply.delay());
                events.send("content_block_delta", delta(index, Json.object().put("type", "text_delta").put("text", text)));
                sent++;
            }
            if (events.faultNow(reply.fault(), sent)) {
                return;
            }
            events.send("content_block_stop", blockStop(index));
            long output = TokenCounter.count(reply.text()) + TokenCounter.count(String.join("", reply.reasoning()));
            ObjectNode end = Json.object().put("type", "message_delta");
            end.putObject("delta").put("stop_reason", stopReason(reply.finishReason())).putNull("stop_sequence");
            end.putObject("usage").put("output_tokens", output);
            events.send("message_delta", Json.write(end));
            events.send("message_stop", "{\"type\":\"message_stop\"}");
        } catch (IOException e) {
            onAbort.run();
        }
    }

    private static String blockStart(int index, ObjectNode block) {
        ObjectNode event = Json.object().put("type", "content_block_start").put("index", index);
        event.set("content_block", block);
        return Json.write(event);
    }

    private static String delta(int index, ObjectNode delta) {
        ObjectNode event = Json.object().put("type", "content_block_delta").put("index", index);
        event.set("delta", delta);
        return Json.write(event);
    }

    private static String blockStop(int index) {
        return Json.write(Json.object().put("type", "content_block_stop").put("index", index));
    }

    /** The scripted finish reason (Gemini's words) in Anthropic's. */
    private static String stopReason(String geminiReason) {
        if (geminiReason == null || geminiReason.equals("STOP")) {
            return "end_turn";
        }
        return geminiReason.equals("MAX_TOKENS") ? "max_tokens" : "refusal";
    }

    /** What a signature vouches for: the model, the conversation before the answer it signs, and its thinking. */
    private static String vouch(String model, String before, String thinking) {
        MessageDigest digest = sha256();
        digest.update((model + "\u0000" + before + "\u0000" + thinking).getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(digest.digest());
    }

    private static String digestSoFar(MessageDigest running) {
        try {
            return HexFormat.of().formatHex(((MessageDigest) running.clone()).digest());
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException("SHA-256 digests can be cloned in every JDK", e);
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    private static ObjectNode errorBody(String type, String message) {
        ObjectNode body = Json.object().put("type", "error");
        body.putObject("error").put("type", type).put("message", message);
        return body;
    }

    static void error(Context ctx, int status, String type, String message) {
        ctx.status(status).contentType("application/json").result(Json.write(errorBody(type, message)));
    }

    private static String errorType(int status) {
        return switch (status) {
            case 400 -> "invalid_request_error";
            case 401 -> "authentication_error";
            case 403 -> "permission_error";
            case 404 -> "not_found_error";
            case 413 -> "request_too_large";
            case 429 -> "rate_limit_error";
            case 529 -> "overloaded_error";
            default -> "api_error";
        };
    }
}
