package dev.skillforge.server.provider.sim;

import dev.skillforge.server.cache.CacheRule;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.server.web.Servers;
import dev.skillforge.server.json.Json;
import io.javalin.Javalin;
import io.javalin.http.Context;

import java.io.IOException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A simulated model provider on a loopback port, speaking OpenAI's chat-completions wire format
 * (streaming and not), with a real prefix cache by OpenAI's documented rule, Gemini's
 * {@code streamGenerateContent?alt=sse} on the same port ({@link GeminiSimWire}: Gemini's implicit-cache
 * rule, thought signatures, grounding) and Anthropic's {@code /v1/messages} ({@link AnthropicSimWire}: its
 * prompt cache with breakpoints, look-back, writes and TTL, signed thinking). It serves the offline demo (with {@link DemoAgent}) and the
 * tests (with a {@link SimScript}). It is a simulation and says so: the model is {@value #MODEL} and
 * the demo's answers begin with a notice. Like the real APIs, it refuses a prompt longer than the
 * model's context window ({@link Options}) with HTTP 400 and the provider's own words.
 */
public final class SimProviderServer implements AutoCloseable {

    public static final String MODEL = "skillforge-sim-1";

    private final SimResponder responder;
    private final PrefixCache cache;
    private final int contextWindow;
    /** Every request received, when the options ask for it ({@code null} otherwise: the demo keeps nothing). */
    private final List<SimRequest> requests;
    private final AtomicInteger aborts = new AtomicInteger();
    private final AtomicLong ids = new AtomicLong();
    private volatile CountDownLatch abortSeen = new CountDownLatch(1);
    private final GeminiSimWire gemini;
    private final AnthropicSimWire anthropic;
    private final Javalin app;

    /**
     * What the simulated models are like: the prompt-cache rule of the OpenAI format (Gemini's follows
     * the model's name, {@link CacheRule#forGeminiModel}; Anthropic's is its own, {@link AnthropicPromptCache}) and
     * each format's context window in prompt tokens; whether every request is kept for {@link #requests()} (tests
     * and benchmarks; never the demo, whose memory would grow with every turn); and the clock Anthropic's cache
     * entries expire by.
     */
    public record Options(CacheRule openAiCacheRule, int openAiContextWindow, int geminiContextWindow, boolean recordRequests,
                          int anthropicContextWindow, InstantSource clock) {

        /**
         * OpenAI's cache rule; windows as large as those of the models each format stands for (128K, 1M, 1M);
         * nothing recorded; the system clock.
         */
        public static final Options DEFAULT = new Options(CacheRule.OPENAI, 131_072, 1_048_576, false, 1_000_000, InstantSource.system());

        public Options withCacheRule(CacheRule rule) {
            return new Options(rule, openAiContextWindow, geminiContextWindow, recordRequests, anthropicContextWindow, clock);
        }

        /** The same window, in tokens, for every format. */
        public Options withContextWindow(int tokens) {
            return new Options(openAiCacheRule, tokens, tokens, recordRequests, tokens, clock);
        }

        /** These options, keeping every request for {@link #requests()}. */
        public Options recordingRequests() {
            return new Options(openAiCacheRule, openAiContextWindow, geminiContextWindow, true, anthropicContextWindow, clock);
        }

        /** These options, Anthropic's cache entries expiring by {@code time} (a test's manual clock). */
        public Options withClock(InstantSource time) {
            return new Options(openAiCacheRule, openAiContextWindow, geminiContextWindow, recordRequests, anthropicContextWindow, time);
        }
    }

    private SimProviderServer(String host, int port, SimResponder responder, Options options) {
        this.responder = responder;
        this.cache = new PrefixCache(options.openAiCacheRule());
        this.contextWindow = options.openAiContextWindow();
        this.requests = options.recordRequests() ? new CopyOnWriteArrayList<>() : null;
        this.gemini = new GeminiSimWire(responder, this::record, this::recordAbort, ids, options.geminiContextWindow());
        this.anthropic = new AnthropicSimWire(responder, this::record, this::recordAbort, ids, options.anthropicContextWindow(),
                options.clock());
        this.app = Servers.start(host, port, config -> {
            config.http.maxRequestSize = 64L * 1024 * 1024;
            config.routes.post("/v1/chat/completions", this::chatCompletions);
            config.routes.get("/v1/models", ctx -> ctx.json(modelList()));
            config.routes.post("/v1beta/models/{target}", gemini::handle);
            config.routes.post("/v1/messages", anthropic::handle);
        });
    }

    public static SimProviderServer start(String host, int port, SimResponder responder) {
        return start(host, port, responder, Options.DEFAULT);
    }

    public static SimProviderServer start(String host, int port, SimResponder responder, Options options) {
        return new SimProviderServer(host, port, responder, options);
    }

    /** Starts on a free loopback port. */
    public static SimProviderServer startOnLoopback(SimResponder responder) {
        return startOnLoopback(responder, Options.DEFAULT);
    }

    /** Starts on a free loopback port, with models like {@code options} says. */
    public static SimProviderServer startOnLoopback(SimResponder responder, Options options) {
        return start("127.0.0.1", 0, responder, options);
    }

    public int port() {
        return app.port();
    }

    /** The base URL an OpenAI client takes, ending in {@code /v1}. */
    public String baseUrl() {
        return "http://127.0.0.1:" + port() + "/v1";
    }

    /** The base URL a Gemini client takes: the root before {@code /v1beta}. */
    public String geminiBaseUrl() {
        return "http://127.0.0.1:" + port();
    }

    /** The base URL an Anthropic client takes: the root before {@code /v1}. */
    public String anthropicBaseUrl() {
        return "http://127.0.0.1:" + port();
    }

    /**
     * Every request received so far, in order.
     *
     * @throws IllegalStateException when this simulation was started without {@link Options#recordingRequests()}
     */
    public List<SimRequest> requests() {
        if (requests == null) {
            throw new IllegalStateException("this simulated provider keeps no requests: start it with Options.recordingRequests()");
        }
        return List.copyOf(requests);
    }

    private void record(SimRequest request) {
        if (requests != null) {
            requests.add(request);
        }
    }

    /** How many streams were cut by the client before they were complete. */
    public int aborts() {
        return aborts.get();
    }

    /** Waits until a client cut a stream; true if one did within {@code timeout}. */
    public boolean awaitAbort(Duration timeout) throws InterruptedException {
        return abortSeen.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        Servers.stop(app, "the simulated provider");
    }

    private void chatCompletions(Context ctx) throws IOException {
        String body = ctx.body();
        JsonNode json;
        try {
            json = Json.parse(body);
        } catch (IOException e) {
            error(ctx, 400, "invalid JSON: " + e.getMessage(), "invalid_request_error");
            return;
        }
        JsonNode messagesNode = json == null ? null : json.get("messages");
        if (messagesNode == null || !messagesNode.isArray() || messagesNode.isEmpty()) {
            error(ctx, 400, "'messages' must be a non-empty array", "invalid_request_error");
            return;
        }
        List<TokenCounter.Message> messages = new ArrayList<>();
        for (int i = 0; i < messagesNode.size(); i++) {
            JsonNode message = messagesNode.get(i);
            String role = Json.text(message, "role");
            String content = contentText(message.get("content"));
            if (role == null || content == null) {
                error(ctx, 400, "each message needs a string 'role' and a string 'content'", "invalid_request_error");
                return;
            }
            try {
                messages.add(new TokenCounter.Message(role, content, images(message.get("content"), "messages[" + i + "].content")));
            } catch (IllegalArgumentException e) {
                error(ctx, 400, "Invalid image: " + e.getMessage(), "invalid_request_error", "invalid_image_format");
                return;
            }
        }
        String cacheKey = Json.text(json, "prompt_cache_key");
        int[] prompt = TokenCounter.promptTokens(messages);
        boolean tooLong = prompt.length > contextWindow;
        // A refused prompt is never read, so nothing of it is cached.
        long cached = tooLong ? 0 : cache.lookUpAndStore(cacheKey == null ? "" : cacheKey, prompt);
        record(new SimRequest(body, json, cacheKey, prompt.length, cached, "openai", ctx.path(), headers(ctx)));
        if (tooLong) {
            error(ctx, 400, "This model's maximum context length is " + contextWindow + " tokens. However, your messages resulted in "
                    + prompt.length + " tokens. Please reduce the length of the messages.", "invalid_request_error", "context_length_exceeded");
            return;
        }

        SimReply reply = responder.reply(messages);
        if (reply.fault() instanceof SimReply.HttpError httpError) {
            if (httpError.retryAfter() != null) {
                ctx.header("Retry-After", httpError.retryAfter());
            }
            error(ctx, httpError.status(), httpError.message(), "sim_error");
            return;
        }
        long completion = TokenCounter.count(reply.text()) + TokenCounter.count(String.join("", reply.reasoning()));
        ObjectNode usage = usage(prompt.length, completion, cached);
        if (!json.path("stream").asBoolean(false)) {
            ctx.json(completion(reply, usage));
            return;
        }
        boolean includeUsage = json.path("stream_options").path("include_usage").asBoolean(false);
        stream(ctx, reply, includeUsage ? usage : null);
    }

    /** Writes the reply as OpenAI's streaming chunks; a client that leaves is counted as an abort. */
    private void stream(Context ctx, SimReply reply, ObjectNode usage) {
        String id = "chatcmpl-sim-" + ids.incrementAndGet();
        try {
            SimEvents events = SimEvents.open(ctx, SimEvents.LF, message -> {
                ObjectNode body = Json.object();
                body.putObject("error").put("message", message).put("type", "sim_error");
                return body;
            });
            String first = chunk(id, delta -> delta.put("role", "assistant").put("content", ""), null);
            if (!reply.sources().isEmpty()) {
                // GLM's shape: the search results in a top-level web_search array
                ObjectNode withSources = (ObjectNode) Json.parse(first);
                ArrayNode results = withSources.putArray("web_search");
                int ref = 0;
                for (SimReply.Source source : reply.sources()) {
                    results.addObject().put("title", source.title()).put("link", source.url()).put("refer", "ref_" + ++ref);
                }
                first = Json.write(withSources);
            }
            events.send(first);
            for (String reasoning : reply.reasoning()) {
                pause(reply.delay());
                events.send(chunk(id, delta -> delta.put("reasoning_content", reasoning), null));
            }
            int sent = 0;
            for (String text : reply.chunks()) {
                if (events.faultNow(reply.fault(), sent)) {
                    return;
                }
                pause(reply.delay());
                events.send(chunk(id, delta -> delta.put("content", text), null));
                sent++;
            }
            if (events.faultNow(reply.fault(), sent)) {
                return;
            }
            events.send(chunk(id, delta -> { }, openAiFinishReason(reply.finishReason())));
            if (usage != null) {
                ObjectNode last = Json.object();
                last.put("id", id).put("object", "chat.completion.chunk").put("model", MODEL);
                last.putArray("choices");
                last.set("usage", usage);
                events.send(Json.write(last));
            }
            events.send("[DONE]");
        } catch (IOException e) {
            recordAbort();
        }
    }

    private void recordAbort() {
        aborts.incrementAndGet();
        abortSeen.countDown();
    }

    /** Gemini's finish reason in OpenAI's words. */
    private static String openAiFinishReason(String geminiReason) {
        if (geminiReason == null || geminiReason.equals("STOP")) {
            return "stop";
        }
        return geminiReason.equals("MAX_TOKENS") ? "length" : "content_filter";
    }

    private static String chunk(String id, java.util.function.Consumer<ObjectNode> delta, String finishReason) {
        ObjectNode chunk = Json.object();
        chunk.put("id", id).put("object", "chat.completion.chunk").put("model", MODEL);
        ObjectNode choice = chunk.putArray("choices").addObject();
        choice.put("index", 0);
        delta.accept(choice.putObject("delta"));
        if (finishReason == null) {
            choice.putNull("finish_reason");
        } else {
            choice.put("finish_reason", finishReason);
        }
        return Json.write(chunk);
    }

    private static ObjectNode usage(long prompt, long completion, long cached) {
        ObjectNode usage = Json.object();
        usage.put("prompt_tokens", prompt).put("completion_tokens", completion).put("total_tokens", prompt + completion);
        usage.putObject("prompt_tokens_details").put("cached_tokens", cached);
        return usage;
    }

    private ObjectNode completion(SimReply reply, ObjectNode usage) {
        ObjectNode body = Json.object();
        body.put("id", "chatcmpl-sim-" + ids.incrementAndGet()).put("object", "chat.completion").put("model", MODEL);
        ObjectNode choice = body.putArray("choices").addObject();
        choice.put("index", 0);
        ObjectNode message = choice.putObject("message").put("role", "assistant").put("content", reply.text());
        if (!reply.reasoning().isEmpty()) {
            message.put("reasoning_content", String.join("", reply.reasoning()));
        }
        choice.put("finish_reason", "stop");
        body.set("usage", usage);
        return body;
    }

    private static ObjectNode modelList() {
        ObjectNode list = Json.object().put("object", "list");
        list.putArray("data").addObject().put("id", MODEL).put("object", "model").put("owned_by", "skillforge-simulation");
        return list;
    }

    /** Message content as text: a string, or OpenAI's array of parts with text. */
    private static String contentText(JsonNode content) {
        if (content == null) {
            return null;
        }
        if (content.isTextual()) {
            return content.asText();
        }
        if (content.isArray()) {
            StringBuilder text = new StringBuilder();
            for (JsonNode part : (ArrayNode) content) {
                String piece = Json.text(part, "text");
                if (piece != null) {
                    text.append(piece);
                }
            }
            return text.toString();
        }
        return null;
    }

    /** The images of OpenAI's content parts: {@code image_url} parts with a base64 {@code data:} URL (the only kind the simulation reads). */
    private static List<SimImage> images(JsonNode content, String where) {
        List<SimImage> images = new ArrayList<>();
        if (content == null || !content.isArray()) {
            return images;
        }
        for (int k = 0; k < content.size(); k++) {
            JsonNode part = content.get(k);
            if (!"image_url".equals(Json.text(part, "type"))) {
                continue;
            }
            String at = where + "[" + k + "].image_url.url";
            String url = Json.text(part.path("image_url"), "url");
            int comma = url == null ? -1 : url.indexOf(',');
            if (url == null || !url.startsWith("data:") || comma < 0 || !url.substring(0, comma).endsWith(";base64")) {
                throw new IllegalArgumentException(at + ": the simulation reads only base64 data: URLs");
            }
            images.add(SimImage.read(url.substring("data:".length(), comma - ";base64".length()), url.substring(comma + 1), at));
        }
        return images;
    }

    private static void error(Context ctx, int status, String message, String type) {
        error(ctx, status, message, type, null);
    }

    /** OpenAI's error body; {@code code} ({@code context_length_exceeded}, …) is {@code null} when OpenAI sends none. */
    private static void error(Context ctx, int status, String message, String type, String code) {
        ObjectNode body = Json.object();
        ObjectNode error = body.putObject("error").put("message", message).put("type", type);
        if (code != null) {
            error.put("code", code);
        }
        ctx.status(status).contentType("application/json").result(Json.write(body));
    }

    /** A request's headers, names in lower case. */
    static Map<String, String> headers(Context ctx) {
        Map<String, String> headers = new LinkedHashMap<>();
        for (String name : Collections.list(ctx.req().getHeaderNames())) {
            headers.put(name.toLowerCase(Locale.ROOT), ctx.req().getHeader(name));
        }
        return headers;
    }

    static void pause(Duration delay) {
        if (delay.isZero()) {
            return;
        }
        try {
            Thread.sleep(delay);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
