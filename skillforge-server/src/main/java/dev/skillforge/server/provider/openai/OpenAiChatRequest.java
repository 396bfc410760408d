package dev.skillforge.server.provider.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.transcript.Attachment;
import dev.skillforge.core.transcript.Entry;
import dev.skillforge.server.json.Json;

import java.io.IOException;

/**
 * The body of a streaming chat-completions request, built the same way every time: the system
 * prompt, then one message per transcript entry in order, assistant content verbatim (with its
 * {@code reasoning_content} replayed when the model produced one, or always where the vendor's
 * {@link ChatOptions} say so), tool output as a {@code user} message starting
 * {@value #SHELL_OUTPUT_PREFIX}; then the vendor's own options ({@link ChatOptions}). A person's message with images
 * is an array of parts: an {@code image_url} part with a base64 {@code data:} URL for each image, in order, then the
 * text (left out when empty); without images it stays a plain string.
 */
public final class OpenAiChatRequest {

    public static final String SHELL_OUTPUT_PREFIX = "[Shell Output]\n";
    /** The replay format this adapter writes: the assistant's {@code reasoning_content}, as streamed. */
    public static final String REASONING_REPLAY = "openai.reasoning_content";

    private static final JsonNode GLM_WEB_SEARCH_TOOL;

    static {
        try {
            GLM_WEB_SEARCH_TOOL = Json.parse(ChatOptions.GLM_WEB_SEARCH_TOOL);
        } catch (IOException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private OpenAiChatRequest() {
    }

    public static ObjectNode build(ModelCall call, String model, boolean sendPromptCacheKey) {
        return build(call, model, sendPromptCacheKey, ChatOptions.PLAIN);
    }

    /** The body with a vendor's options (see {@link ChatOptions} for what each adds, and where). */
    public static ObjectNode build(ModelCall call, String model, boolean sendPromptCacheKey, ChatOptions options) {
        ObjectNode body = Json.object();
        body.put("model", model);
        body.set("messages", messages(call, options.reasoningReplay()));
        body.put("stream", true);
        body.putObject("stream_options").put("include_usage", true);
        if (sendPromptCacheKey) {
            body.put("prompt_cache_key", call.routingKey());
        }
        if (options.cachePrompt()) {
            body.put("cache_prompt", true);
        }
        if (options.preservedThinking()) {
            body.putObject("thinking").put("type", "enabled").put("clear_thinking", false);
        }
        if (options.webSearch()) {
            body.putArray("tools").add(GLM_WEB_SEARCH_TOOL.deepCopy());
        }
        return body;
    }

    private static void userMessage(ObjectNode message, Entry.User user) {
        message.put("role", "user");
        if (user.images().isEmpty()) {
            message.put("content", user.modelText());
            return;
        }
        ArrayNode parts = message.putArray("content");
        for (Attachment image : user.images()) {
            parts.addObject().put("type", "image_url").putObject("image_url")
                    .put("url", "data:" + image.mediaType() + ";base64," + image.image().base64());
        }
        if (!user.modelText().isEmpty()) {
            parts.addObject().put("type", "text").put("text", user.modelText());
        }
    }

    public static ArrayNode messages(ModelCall call) {
        return messages(call, ChatOptions.ReasoningReplay.WHEN_PRESENT);
    }

    public static ArrayNode messages(ModelCall call, ChatOptions.ReasoningReplay reasoningReplay) {
        ArrayNode messages = Json.MAPPER.createArrayNode();
        messages.addObject().put("role", "system").put("content", call.systemPrompt());
        for (Entry entry : call.entries()) {
            ObjectNode message = messages.addObject();
            switch (entry) {
                case Entry.User user -> userMessage(message, user);
                case Entry.Tool tool -> message.put("role", "user").put("content", SHELL_OUTPUT_PREFIX + tool.content());
                case Entry.ContextCut cut -> message.put("role", "user").put("content", cut.content());
                case Entry.Assistant assistant -> {
                    message.put("role", "assistant").put("content", assistant.content());
                    if (assistant.replay() != null && REASONING_REPLAY.equals(assistant.replay().format())) {
                        message.put("reasoning_content", assistant.replay().data());
                    } else if (reasoningReplay == ChatOptions.ReasoningReplay.ALWAYS) {
                        message.put("reasoning_content", "");
                    }
                }
            }
        }
        return messages;
    }
}
