package dev.skillforge.server.provider.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.transcript.Attachment;
import dev.skillforge.core.transcript.Entry;
import dev.skillforge.core.transcript.ProviderReplay;
import dev.skillforge.server.json.Json;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The body of a streaming Messages request, built the same way every time (fixed key order, no
 * re-encoding): {@code model}, {@code max_tokens}, the top-level {@code cache_control} (automatic
 * caching), {@code system}, {@code messages}, {@code thinking}, {@code stream}.
 *
 * <p>Each transcript entry is one message, in order:
 * <ul>
 *   <li>a person's message: role {@code user}, an {@code image} block ({@code source: {type: base64, media_type,
 *       data}}) for each attached image, in order (Anthropic advises images before text), then one text block (left out
 *       when empty beside an image: Anthropic refuses empty text);</li>
 *   <li>tool output: role {@code user}, one text block starting {@value #SHELL_OUTPUT_PREFIX} (SkillForge offers the
 *       model no tools, so there is no {@code tool_use} to answer with a {@code tool_result});</li>
 *   <li>the model's answer: role {@code assistant} with its content blocks exactly as they were stored from its
 *       stream ({@value #CONTENT_REPLAY}: thinking with its signature, redacted thinking, text), written byte for
 *       byte, since Anthropic refuses a signed thinking block that was changed; an answer with nothing stored (a
 *       stopped stream, or one from another provider) is one text block with the verbatim text, and an empty one
 *       with nothing stored is left out (Anthropic refuses empty text, and joins the user turns around it).</li>
 * </ul>
 *
 * <p>After a context cut (the view starts with its note), answers go without their thinking and redacted-thinking
 * blocks: a signature vouches for the thinking after the conversation that preceded it, which no longer starts the
 * same way, and Anthropic's newest models refuse such a block (older ones drop earlier turns' thinking anyway).
 * Every request until the next cut leaves them out alike, so the prompt still only grows.
 *
 * <p>The cache: by default one top-level {@code cache_control}, which Anthropic applies to the last cacheable block
 * and so moves forward as the conversation grows; with {@link Options#explicitBreakpoints()}, for endpoints without
 * that form, a {@code cache_control} on the system prompt and on the newest message's last block (two of the four
 * breakpoints allowed). The markers are not part of what is cached, so {@link #conversation} (what the prefix guard
 * compares) leaves them out.
 */
public final class AnthropicRequest {

    public static final String SHELL_OUTPUT_PREFIX = "[Shell Output]\n";
    /** The replay format this adapter writes: the answer's content blocks as a JSON array, as streamed. */
    public static final String CONTENT_REPLAY = "anthropic.content";

    /**
     * What is asked of Anthropic besides the conversation.
     *
     * @param maxTokens           {@code max_tokens}, thinking included
     * @param thinkingBudget      {@code thinking: {type: enabled, budget_tokens}} (models before adaptive thinking), or {@code null}
     * @param thoughts            without a budget: {@code thinking: {type: adaptive, display: summarized}}, so the thinking
     *                            streams as readable summaries; {@code false} sends no {@code thinking} (the model's default)
     * @param hourLongCache       {@code ttl: "1h"} on the cache markers (else the default five minutes)
     * @param explicitBreakpoints markers on the system prompt and the newest message instead of the top-level one
     */
    public record Options(int maxTokens, Integer thinkingBudget, boolean thoughts, boolean hourLongCache, boolean explicitBreakpoints) {
        /** What the simulation and most tests use: automatic caching for five minutes, no thinking asked for. */
        public static final Options DEFAULT = new Options(32_000, null, false, false, false);
    }

    private AnthropicRequest() {
    }

    public static ObjectNode build(ModelCall call, String model, Options options) {
        ObjectNode conversation = conversation(call);
        ObjectNode body = Json.object();
        body.put("model", model);
        body.put("max_tokens", options.maxTokens());
        if (!options.explicitBreakpoints()) {
            body.set("cache_control", cacheControl(options));
        }
        body.set("system", conversation.get("system"));
        body.set("messages", conversation.get("messages"));
        if (options.explicitBreakpoints()) {
            markLastBlock((ArrayNode) body.get("system"), options);
            ArrayNode messages = (ArrayNode) body.get("messages");
            if (!messages.isEmpty()) {
                markLastBlock((ArrayNode) messages.get(messages.size() - 1).get("content"), options);
            }
        }
        if (options.thinkingBudget() != null) {
            body.putObject("thinking").put("type", "enabled").put("budget_tokens", options.thinkingBudget());
        } else if (options.thoughts()) {
            body.putObject("thinking").put("type", "adaptive").put("display", "summarized");
        }
        body.put("stream", true);
        return body;
    }

    /** The part of the request that only grows, without cache markers: {@code system} and {@code messages}. */
    public static ObjectNode conversation(ModelCall call) {
        ObjectNode body = Json.object();
        body.putArray("system").add(textBlock(call.systemPrompt()));
        ArrayNode messages = body.putArray("messages");
        boolean afterCut = !call.entries().isEmpty() && call.entries().getFirst() instanceof Entry.ContextCut;
        for (Entry entry : call.entries()) {
            switch (entry) {
                case Entry.User user -> personMessage(messages, user);
                case Entry.Tool tool -> userMessage(messages, SHELL_OUTPUT_PREFIX + tool.content());
                case Entry.ContextCut cut -> userMessage(messages, cut.content());
                case Entry.Assistant assistant -> {
                    String stored = storedContent(assistant.replay());
                    if (stored != null && afterCut) {
                        stored = withoutThinking(stored);
                    }
                    if (stored != null) {
                        messages.addObject().put("role", "assistant").putRawValue("content", new RawValue(stored));
                    } else if (!assistant.content().isEmpty()) {
                        messages.addObject().put("role", "assistant").putArray("content").add(textBlock(assistant.content()));
                    }
                }
            }
        }
        return body;
    }

    private static void personMessage(ArrayNode messages, Entry.User user) {
        if (user.images().isEmpty()) {
            userMessage(messages, user.modelText());
            return;
        }
        ArrayNode content = messages.addObject().put("role", "user").putArray("content");
        for (Attachment image : user.images()) {
            content.addObject().put("type", "image").putObject("source").put("type", "base64").put("media_type", image.mediaType())
                    .put("data", image.image().base64());
        }
        if (!user.modelText().isEmpty()) {
            content.add(textBlock(user.modelText()));
        }
    }

    private static void userMessage(ArrayNode messages, String text) {
        messages.addObject().put("role", "user").putArray("content").add(textBlock(text));
    }

    private static ObjectNode textBlock(String text) {
        return Json.object().put("type", "text").put("text", text);
    }

    private static ObjectNode cacheControl(Options options) {
        ObjectNode control = Json.object().put("type", "ephemeral");
        if (options.hourLongCache()) {
            control.put("ttl", "1h");
        }
        return control;
    }

    /** Puts a cache marker on the last block of {@code content} (a user message's own blocks: never stored replay bytes). */
    private static void markLastBlock(ArrayNode content, Options options) {
        if (content != null && !content.isEmpty() && content.get(content.size() - 1) instanceof ObjectNode last) {
            last.set("cache_control", cacheControl(options));
        }
    }

    /** Stored content blocks without the thinking ones, or {@code null} when nothing else is left. */
    private static String withoutThinking(String stored) {
        ArrayNode kept = Json.MAPPER.createArrayNode();
        try {
            for (JsonNode block : Json.parse(stored)) {
                String type = Json.text(block, "type");
                if (!"thinking".equals(type) && !"redacted_thinking".equals(type)) {
                    kept.add(block);
                }
            }
        } catch (IOException impossible) {
            throw new UncheckedIOException(impossible); // storedContent parsed it a moment ago
        }
        return kept.isEmpty() ? null : Json.write(kept);
    }

    /** The stored content blocks when the replay is this adapter's and holds a non-empty array of blocks; else {@code null}. */
    static String storedContent(ProviderReplay replay) {
        if (replay == null || !CONTENT_REPLAY.equals(replay.format())) {
            return null;
        }
        try {
            JsonNode blocks = Json.parse(replay.data());
            if (blocks == null || !blocks.isArray() || blocks.isEmpty()) {
                return null;
            }
            for (JsonNode block : blocks) {
                if (!block.isObject() || Json.text(block, "type") == null) {
                    return null;
                }
            }
            return replay.data();
        } catch (Exception corrupt) {
            return null; // not what this adapter wrote: fall back to the verbatim text
        }
    }
}
