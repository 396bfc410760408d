package dev.skillforge.server.provider.anthropic;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.core.agent.ModelReply;
import dev.skillforge.core.agent.ModelStreamListener;
import dev.skillforge.core.agent.ProviderException;
import dev.skillforge.core.agent.Usage;
import dev.skillforge.core.transcript.ProviderReplay;
import dev.skillforge.core.transcript.StorableText;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.provider.ProviderErrors;
import dev.skillforge.server.provider.StreamParser;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Turns the {@code data:} payloads of a streaming Messages response into listener calls, and keeps what
 * the reply leaves: the content blocks to replay, and usage. Each payload names its event in {@code type}.
 *
 * <ul>
 *   <li><b>Blocks</b>: {@code content_block_start} gives a block as it begins; {@code content_block_delta}s add to it
 *       ({@code text_delta} to {@code text}, streamed to {@code onText}; {@code thinking_delta} to {@code thinking},
 *       streamed to {@code onReasoning}; {@code signature_delta} to {@code signature}; {@code input_json_delta} to the
 *       {@code input} JSON; {@code citations_delta} to {@code citations}); {@code content_block_stop} ends it. A
 *       {@code redacted_thinking} block comes whole (its {@code data} is encrypted: nothing to show). Every block is
 *       kept for replay as it streamed, by index, keys in the order they came; only a text block that stayed empty
 *       is left out (Anthropic refuses empty text blocks).</li>
 *   <li><b>Usage</b>: {@code message_start} reports it first, {@code message_delta} again (cumulative: a figure it
 *       repeats replaces the earlier one). Input = {@code input_tokens} (after the last cache breakpoint) +
 *       {@code cache_read_input_tokens} + {@code cache_creation_input_tokens}; cache read = the second, cache write
 *       the third; output = {@code output_tokens}, thinking included.</li>
 *   <li><b>The end</b>: {@code message_delta} carries the stop reason. {@code end_turn} (and {@code stop_sequence})
 *       is a complete answer; any other reason fails the call with {@code provider_finish_<reason>} after the text
 *       already delivered: {@code max_tokens} (the answer is cut off, maybe inside a {@code <shell>} tag),
 *       {@code refusal}, {@code pause_turn}, {@code tool_use} (SkillForge offers no tools to answer it with),
 *       {@code model_context_window_exceeded}. A body that ends before {@code message_stop} is
 *       {@code provider_stream_truncated}.</li>
 *   <li><b>Errors</b>: an {@code error} event mid-stream ({@code overloaded_error}, …) is {@code provider_stream_error}
 *       with Anthropic's message and type, also after partial text: never a short answer. {@code ping} is ignored.</li>
 * </ul>
 */
final class AnthropicStreamParser implements StreamParser {

    private static final Set<String> COMPLETE = Set.of("end_turn", "stop_sequence");

    private final ModelStreamListener listener;
    private final TreeMap<Integer, ObjectNode> blocks = new TreeMap<>();
    private final TreeMap<Integer, StringBuilder> partialInputs = new TreeMap<>();
    /**
     * The text fields of each block as they grow, written into the block when it stops (or the reply is made): a field
     * rebuilt as a string on every delta made an answer's reading quadratic in its length.
     */
    private final TreeMap<Integer, Map<String, StringBuilder>> growing = new TreeMap<>();
    private Long inputTokens;
    private Long outputTokens;
    private Long cacheReadTokens;
    private Long cacheWriteTokens;
    private String stopReason;
    private String model;
    private boolean stopped;

    public AnthropicStreamParser(ModelStreamListener listener) {
        this.listener = listener;
    }

    /**
     * Reads one event's data.
     *
     * @throws ProviderException for an error event, a stop reason other than {@code end_turn}, or data that is not JSON
     */
    @Override
    public boolean accept(String data) throws ProviderException {
        read(data);
        return true; // the body's end is the stream's
    }

    private void read(String data) throws ProviderException {
        JsonNode event;
        try {
            event = Json.parse(data);
        } catch (JsonProcessingException e) {
            throw new ProviderException("provider_stream_error", "The provider sent malformed JSON mid-stream: " + e.getOriginalMessage());
        }
        if (event == null || !event.isObject()) {
            return;
        }
        switch (String.valueOf(Json.text(event, "type"))) {
            case "message_start" -> {
                readUsage(event.path("message").get("usage"));
                model = Json.text(event.path("message"), "model");
            }
            case "content_block_start" -> start(event);
            case "content_block_delta" -> delta(event);
            case "content_block_stop" -> stop(event);
            case "message_delta" -> {
                readUsage(event.get("usage"));
                String reason = Json.text(event.path("delta"), "stop_reason");
                if (reason != null) {
                    stopReason = reason;
                    if (!COMPLETE.contains(reason)) {
                        throw finishedEarly(reason);
                    }
                }
            }
            case "message_stop" -> stopped = true;
            case "error" -> throw new ProviderException("provider_stream_error",
                    "The provider reported an error mid-stream: " + errorMessage(event.path("error")));
            default -> {
                // ping, and events added after this was written
            }
        }
    }

    private void start(JsonNode event) throws ProviderException {
        JsonNode block = event.get("content_block");
        if (!(block instanceof ObjectNode object) || !event.path("index").canConvertToInt()) {
            throw new ProviderException("provider_stream_error", "The provider started a content block without an index or a block: " + event);
        }
        blocks.put(event.get("index").asInt(), object.deepCopy());
        growing.remove(event.get("index").asInt()); // a block started again starts from what its start holds
    }

    private void delta(JsonNode event) throws ProviderException {
        int index = event.path("index").asInt(-1);
        ObjectNode block = blocks.get(index);
        if (block == null) {
            throw new ProviderException("provider_stream_error", "The provider sent a delta for content block " + index + ", which it never started");
        }
        JsonNode delta = event.path("delta");
        switch (String.valueOf(Json.text(delta, "type"))) {
            case "text_delta" -> {
                String text = String.valueOf(Json.text(delta, "text"));
                append(index, block, "text", text);
                if (!text.isEmpty()) {
                    listener.onText(text);
                }
            }
            case "thinking_delta" -> {
                String thinking = String.valueOf(Json.text(delta, "thinking"));
                append(index, block, "thinking", thinking);
                if (!thinking.isEmpty()) {
                    listener.onReasoning(thinking);
                }
            }
            case "signature_delta" -> append(index, block, "signature", String.valueOf(Json.text(delta, "signature")));
            case "input_json_delta" -> partialInputs.computeIfAbsent(index, i -> new StringBuilder())
                    .append(String.valueOf(Json.text(delta, "partial_json")));
            case "citations_delta" -> {
                if (delta.has("citation")) {
                    block.withArray("citations").add(delta.get("citation"));
                }
            }
            default -> {
                // a delta kind added after this was written: the block keeps what it had
            }
        }
    }

    private void stop(JsonNode event) throws ProviderException {
        int index = event.path("index").asInt(-1);
        StringBuilder input = partialInputs.remove(index);
        ObjectNode block = blocks.get(index);
        settle(index, block);
        if (input != null && !input.isEmpty() && block != null) {
            try {
                block.set("input", Json.parse(input.toString()));
            } catch (JsonProcessingException e) {
                throw new ProviderException("provider_stream_error", "The provider streamed malformed tool input JSON: " + e.getOriginalMessage());
            }
        }
    }

    /** Adds {@code piece} to the block's text field; a field the block did not start with takes its place now. */
    private void append(int index, ObjectNode block, String field, String piece) {
        StringBuilder text = growing.computeIfAbsent(index, i -> new LinkedHashMap<>()).get(field);
        if (text == null) {
            String before = Json.text(block, field);
            text = new StringBuilder(before == null ? "" : before);
            growing.get(index).put(field, text);
            block.put(field, ""); // where it goes among the block's fields, as the first delta placed it
        }
        text.append(piece);
    }

    /** Writes the grown text fields of block {@code index} into it. */
    private void settle(int index, ObjectNode block) {
        Map<String, StringBuilder> fields = growing.remove(index);
        if (fields != null && block != null) {
            fields.forEach((field, text) -> block.put(field, text.toString()));
        }
    }

    private void readUsage(JsonNode usage) {
        if (usage == null || !usage.isObject()) {
            return;
        }
        inputTokens = orElse(Json.number(usage, "input_tokens"), inputTokens);
        outputTokens = orElse(Json.number(usage, "output_tokens"), outputTokens);
        cacheReadTokens = orElse(Json.number(usage, "cache_read_input_tokens"), cacheReadTokens);
        cacheWriteTokens = orElse(Json.number(usage, "cache_creation_input_tokens"), cacheWriteTokens);
    }

    private static Long orElse(Long reported, Long earlier) {
        return reported != null ? reported : earlier;
    }

    private static ProviderException finishedEarly(String reason) {
        String why = switch (reason) {
            case "max_tokens" -> "The model reached its output token limit (max_tokens): the answer is cut off";
            case "refusal" -> "The model refused to continue: the text so far is incomplete";
            case "pause_turn" -> "The provider paused the turn before it was complete";
            case "tool_use" -> "The model asked to use a tool, but SkillForge offers it none: the answer is incomplete";
            case "model_context_window_exceeded" -> "The model's context window was full: the answer is cut off";
            default -> "The model stopped the answer early";
        };
        return new ProviderException("provider_finish_" + reason.toLowerCase(Locale.ROOT), why + " (stop_reason " + reason + ")");
    }

    /** Anthropic's error object in words: its message, then its type ({@code overloaded_error}, …). */
    public static String errorMessage(JsonNode error) {
        return ProviderErrors.message(error, "type");
    }

    /** Called at the end of the body: a stream that never reached {@code message_stop} is incomplete. */
    @Override
    public boolean finish() throws ProviderException {
        if (!stopped || stopReason == null) {
            throw new ProviderException("provider_stream_truncated",
                    "The provider stream ended before message_stop with a stop reason: the answer is incomplete");
        }
        return false; // ended with the body: nothing left to read
    }

    @Override
    public ModelReply reply() {
        return new ModelReply(replay(), usage(), model(), stopReason());
    }

    public Usage usage() {
        Long input = inputTokens == null ? null : inputTokens + orZero(cacheReadTokens) + orZero(cacheWriteTokens);
        return new Usage(input, outputTokens, cacheReadTokens, cacheWriteTokens);
    }

    private static long orZero(Long value) {
        return value == null ? 0 : value;
    }

    /** The model {@code message_start} named, or {@code null}. */
    public String model() {
        return model;
    }

    /** Why the model stopped ({@code end_turn}, {@code max_tokens}, …), or {@code null} if it did not say. */
    public String stopReason() {
        return stopReason;
    }

    /**
     * The content blocks to replay, or {@code null} when none worth keeping streamed. The JSON is made
     * storable as the answer's text is ({@link StorableText}: an unpaired surrogate becomes U+FFFD);
     * otherwise it is exactly what streamed.
     */
    public ProviderReplay replay() {
        List.copyOf(growing.keySet()).forEach(index -> settle(index, blocks.get(index))); // blocks that never stopped
        ArrayNode kept = Json.MAPPER.createArrayNode();
        for (ObjectNode block : blocks.values()) {
            if (!("text".equals(Json.text(block, "type")) && "".equals(Json.text(block, "text")))) {
                kept.add(block);
            }
        }
        return kept.isEmpty() ? null : new ProviderReplay(AnthropicRequest.CONTENT_REPLAY, StorableText.clean(Json.write(kept)));
    }
}
