package dev.skillforge.server.provider.gemini;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.transcript.Attachment;
import dev.skillforge.core.transcript.Entry;
import dev.skillforge.core.transcript.ProviderReplay;
import dev.skillforge.server.json.Json;

/**
 * The body of a {@code streamGenerateContent} request, built the same way every time (fixed key
 * order, no re-encoding): {@code systemInstruction}, {@code contents}, then {@code tools} and
 * {@code generationConfig}.
 *
 * <p>Each transcript entry is one content, in order:
 * <ul>
 *   <li>a person's message: role {@code user}, a {@code file_data} part for each video it links
 *       ({@link VideoLinks}; before the text, where Google advises a video to go), an {@code inline_data} part
 *       ({@code mime_type}, base64 {@code data}) for each attached image, in order, then the text (left out when empty
 *       beside an image);</li>
 *   <li>tool output: role {@code user}, one text part starting {@value #SHELL_OUTPUT_PREFIX} (Gemini has no tool
 *       role for output it did not ask for through function calling);</li>
 *   <li>the model's answer: role {@code model} with the parts exactly as they were stored from its
 *       stream ({@value #PARTS_REPLAY}: thought parts and {@code thoughtSignature}s included, also on
 *       empty-text parts, never merged), written byte for byte; an answer with nothing stored (a
 *       stopped stream, or one from another provider) is one text part with the verbatim text.</li>
 * </ul>
 */
public final class GeminiRequest {

    public static final String SHELL_OUTPUT_PREFIX = "[Shell Output]\n";
    /** The replay format this adapter writes: the model turn's parts as a JSON array, as streamed. */
    public static final String PARTS_REPLAY = "gemini.parts";

    /**
     * What is asked of Gemini besides the conversation.
     *
     * @param googleSearch    offer the {@code google_search} tool (grounding; its sources become source events)
     * @param urlContext      offer the {@code url_context} tool (the model may read the pages a message links)
     * @param includeThoughts ask for thought summaries ({@code thinkingConfig.includeThoughts}), streamed as reasoning
     */
    public record Options(boolean googleSearch, boolean urlContext, boolean includeThoughts) {
        public static final Options ALL = new Options(true, true, true);
        public static final Options NONE = new Options(false, false, false);
    }

    private GeminiRequest() {
    }

    public static ObjectNode build(ModelCall call, Options options) {
        ObjectNode body = conversation(call);
        if (options.googleSearch() || options.urlContext()) {
            ArrayNode tools = body.putArray("tools");
            if (options.googleSearch()) {
                tools.addObject().putObject("google_search");
            }
            if (options.urlContext()) {
                tools.addObject().putObject("url_context");
            }
        }
        if (options.includeThoughts()) {
            body.putObject("generationConfig").putObject("thinkingConfig").put("includeThoughts", true);
        }
        return body;
    }

    /** The part of the request that only grows: {@code systemInstruction} and {@code contents}. */
    public static ObjectNode conversation(ModelCall call) {
        ObjectNode body = Json.object();
        body.putObject("systemInstruction").putArray("parts").addObject().put("text", call.systemPrompt());
        ArrayNode contents = body.putArray("contents");
        for (Entry entry : call.entries()) {
            ObjectNode content = contents.addObject();
            switch (entry) {
                case Entry.User user -> {
                    content.put("role", "user");
                    ArrayNode parts = content.putArray("parts");
                    for (VideoLinks.Video video : VideoLinks.find(user.content())) {
                        ObjectNode fileData = parts.addObject().putObject("file_data");
                        if (video.mimeType() != null) {
                            fileData.put("mime_type", video.mimeType());
                        }
                        fileData.put("file_uri", video.uri());
                    }
                    for (Attachment image : user.images()) {
                        parts.addObject().putObject("inline_data").put("mime_type", image.mediaType()).put("data", image.image().base64());
                    }
                    if (parts.isEmpty() || !user.modelText().isEmpty()) {
                        parts.addObject().put("text", user.modelText());
                    }
                }
                case Entry.Tool tool -> content.put("role", "user").putArray("parts").addObject().put("text", SHELL_OUTPUT_PREFIX + tool.content());
                case Entry.ContextCut cut -> content.put("role", "user").putArray("parts").addObject().put("text", cut.content());
                case Entry.Assistant assistant -> {
                    content.put("role", "model");
                    String stored = storedParts(assistant.replay());
                    if (stored != null) {
                        content.putRawValue("parts", new RawValue(stored));
                    } else {
                        content.putArray("parts").addObject().put("text", assistant.content());
                    }
                }
            }
        }
        return body;
    }

    /** The stored parts when the replay is this adapter's and holds a non-empty array of parts; else {@code null}. */
    static String storedParts(ProviderReplay replay) {
        if (replay == null || !PARTS_REPLAY.equals(replay.format())) {
            return null;
        }
        try {
            JsonNode parts = Json.parse(replay.data());
            if (parts == null || !parts.isArray() || parts.isEmpty()) {
                return null;
            }
            for (JsonNode part : parts) {
                if (!part.isObject()) {
                    return null;
                }
            }
            return replay.data();
        } catch (Exception corrupt) {
            return null; // not what this adapter wrote: fall back to the verbatim text
        }
    }
}
