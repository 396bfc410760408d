package dev.skillforge.server.provider.gemini;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.skillforge.core.agent.ModelReply;
import dev.skillforge.core.agent.ModelStreamListener;
import dev.skillforge.core.agent.ProviderException;
import dev.skillforge.core.agent.Usage;
import dev.skillforge.core.transcript.ProviderReplay;
import dev.skillforge.core.transcript.StorableText;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.provider.ProviderErrors;
import dev.skillforge.server.provider.StreamParser;

import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * Turns the {@code data:} payloads of a {@code streamGenerateContent?alt=sse} stream into listener
 * calls, and keeps what the reply leaves: the model's parts to replay, and usage.
 *
 * <ul>
 *   <li><b>Parts</b> of the first candidate: a text part goes to {@code onText}, a thought part
 *       ({@code "thought": true}) to {@code onReasoning}. Every part is kept for replay exactly as it
 *       came, {@code thoughtSignature} included, also on an empty-text part, never merged with another.
 *       Only a bare {@code {"text": ""}} (nothing else in it) is left out: it carries nothing, and the
 *       recorded Gemini 3 tool loop replays the model turn without it.</li>
 *   <li><b>Sources</b>: {@code groundingMetadata.groundingChunks[].web} ({@code uri}, {@code title}) from
 *       {@code google_search}, and the pages {@code url_context} retrieved
 *       ({@code urlContextMetadata.urlMetadata[]} with status {@code URL_RETRIEVAL_STATUS_SUCCESS}), each
 *       URI once.</li>
 *   <li><b>Usage</b>, the last {@code usageMetadata} wins: input = {@code promptTokenCount} (cached tokens are
 *       already in it) + {@code toolUsePromptTokenCount} (the search results the model read); output =
 *       {@code candidatesTokenCount} + {@code thoughtsTokenCount}; cache read =
 *       {@code cachedContentTokenCount}. Gemini writes its JSON as proto3 does, leaving zero counts out:
 *       in a {@code usageMetadata} that has {@code promptTokenCount}, an absent cached count is 0, not
 *       unknown.</li>
 *   <li><b>The end</b>: the stream ends with the body. The last candidate chunk carries
 *       {@code finishReason}. {@code STOP} is a complete answer; any other reason ({@code MAX_TOKENS},
 *       {@code SAFETY}, {@code RECITATION}, {@code MALFORMED_FUNCTION_CALL}, …) fails the call with
 *       {@code provider_finish_<reason>} after the chunk's text was delivered, never a silently short
 *       answer. {@code MAX_TOKENS} too: SkillForge sets no output limit, so reaching the model's own limit
 *       means a cut-off answer (possibly inside a {@code <shell>} tag), and the person should see that it
 *       failed. A body that ends with no finish reason at all is {@code provider_stream_truncated}.</li>
 *   <li><b>Errors</b>: {@code {"error": …}} mid-stream is {@code provider_stream_error} with Google's message
 *       and status; a prompt refused outright ({@code promptFeedback.blockReason}) is
 *       {@code provider_prompt_blocked}.</li>
 * </ul>
 */
final class GeminiStreamParser implements StreamParser {

    private final ModelStreamListener listener;
    private final ArrayNode parts = Json.MAPPER.createArrayNode();
    private final Set<String> sources = new HashSet<>();
    private Usage usage = Usage.UNKNOWN;
    private String finishReason;
    private String model;

    public GeminiStreamParser(ModelStreamListener listener) {
        this.listener = listener;
    }

    /**
     * Reads one event's data.
     *
     * @throws ProviderException for an error payload, a refused prompt, a finish reason other than
     *                           {@code STOP}, or data that is not JSON
     */
    @Override
    public boolean accept(String data) throws ProviderException {
        read(data);
        return true; // the body's end is the stream's
    }

    private void read(String data) throws ProviderException {
        JsonNode chunk;
        try {
            chunk = Json.parse(data);
        } catch (JsonProcessingException e) {
            throw new ProviderException("provider_stream_error", "The provider sent malformed JSON mid-stream: " + e.getOriginalMessage());
        }
        if (chunk == null) {
            return;
        }
        if (chunk.isArray()) { // the JSON-array framing of a non-SSE stream: the same chunks, in order
            for (JsonNode element : chunk) {
                accept(element);
            }
            return;
        }
        accept(chunk);
    }

    private void accept(JsonNode chunk) throws ProviderException {
        JsonNode error = chunk.get("error");
        if (error != null && !error.isNull()) {
            throw new ProviderException("provider_stream_error", "The provider reported an error mid-stream: " + errorMessage(error));
        }
        String blocked = Json.text(chunk.path("promptFeedback"), "blockReason");
        if (blocked != null) {
            throw new ProviderException("provider_prompt_blocked", "Gemini refused the prompt (blockReason " + blocked + ")"
                    + message(chunk.path("promptFeedback"), "blockReasonMessage"));
        }
        JsonNode candidate = chunk.path("candidates").path(0);
        for (JsonNode part : candidate.path("content").path("parts")) {
            if (!part.isObject()) {
                continue;
            }
            String text = Json.text(part, "text");
            if (text != null && !text.isEmpty()) {
                if (part.path("thought").asBoolean(false)) {
                    listener.onReasoning(text);
                } else {
                    listener.onText(text);
                }
            }
            if (!(part.size() == 1 && "".equals(text))) {
                parts.add(part);
            }
        }
        readSources(candidate);
        readUsage(chunk.get("usageMetadata"));
        String version = Json.text(chunk, "modelVersion");
        if (version != null && !version.isBlank()) {
            model = version;
        }
        String finish = Json.text(candidate, "finishReason");
        if (finish != null) {
            finishReason = finish;
            if (!finish.equals("STOP")) {
                throw finishedEarly(finish, Json.text(candidate, "finishMessage"));
            }
        }
    }

    private void readSources(JsonNode candidate) {
        for (JsonNode grounding : candidate.path("groundingMetadata").path("groundingChunks")) {
            JsonNode web = grounding.path("web");
            String uri = Json.text(web, "uri");
            if (uri != null && !uri.isBlank() && sources.add(uri)) {
                String title = Json.text(web, "title");
                listener.onSource(uri, title == null || title.isBlank() ? uri : title);
            }
        }
        for (JsonNode page : candidate.path("urlContextMetadata").path("urlMetadata")) {
            String uri = Json.text(page, "retrievedUrl");
            if (uri != null && !uri.isBlank() && "URL_RETRIEVAL_STATUS_SUCCESS".equals(Json.text(page, "urlRetrievalStatus"))
                    && sources.add(uri)) {
                listener.onSource(uri, uri);
            }
        }
    }

    private void readUsage(JsonNode meta) {
        if (meta == null || !meta.isObject()) {
            return;
        }
        Long prompt = Json.number(meta, "promptTokenCount");
        Long toolUse = Json.number(meta, "toolUsePromptTokenCount");
        Long candidates = Json.number(meta, "candidatesTokenCount");
        Long thoughts = Json.number(meta, "thoughtsTokenCount");
        Long cached = Json.number(meta, "cachedContentTokenCount");
        Long input = prompt == null ? toolUse : prompt + (toolUse == null ? 0 : toolUse);
        Long output = candidates == null && thoughts == null ? null
                : (candidates == null ? 0 : candidates) + (thoughts == null ? 0 : thoughts);
        Long cacheRead = cached != null ? cached : (prompt != null ? Long.valueOf(0) : null);
        usage = new Usage(input, output, cacheRead);
    }

    private static ProviderException finishedEarly(String reason, String finishMessage) {
        String why = switch (reason) {
            case "MAX_TOKENS" -> "Gemini reached its output token limit: the answer is cut off";
            case "SAFETY" -> "Gemini stopped the answer for safety reasons: the text so far is incomplete";
            case "RECITATION" -> "Gemini stopped the answer because it was reciting a source verbatim: the text so far is incomplete";
            case "MALFORMED_FUNCTION_CALL" -> "Gemini produced a malformed function call and stopped";
            case "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY" ->
                    "Gemini stopped the answer: it touched content Google does not allow";
            default -> "Gemini stopped the answer early";
        };
        return new ProviderException("provider_finish_" + reason.toLowerCase(Locale.ROOT),
                why + " (finishReason " + reason + ")" + (finishMessage == null || finishMessage.isBlank() ? "" : ": " + finishMessage));
    }

    private static String message(JsonNode node, String field) {
        String text = Json.text(node, field);
        return text == null || text.isBlank() ? "" : ": " + text;
    }

    /** Google's error object in words: its message, then its status ({@code INVALID_ARGUMENT}, …). */
    public static String errorMessage(JsonNode error) {
        return ProviderErrors.message(error, "status");
    }

    /** Called at the end of the body: a stream that never said why it finished is incomplete. */
    @Override
    public boolean finish() throws ProviderException {
        if (finishReason == null) {
            throw new ProviderException("provider_stream_truncated",
                    "The provider stream ended without a finishReason: the answer is incomplete");
        }
        return false; // ended with the body: nothing left to read
    }

    @Override
    public ModelReply reply() {
        return new ModelReply(replay(), usage(), model(), finishReason());
    }

    public Usage usage() {
        return usage;
    }

    /** The {@code modelVersion} the chunks named, or {@code null} when none did. */
    public String model() {
        return model;
    }

    /** The last finish reason seen, or {@code null}. */
    public String finishReason() {
        return finishReason;
    }

    /**
     * The model's parts to replay, or {@code null} when it streamed none worth keeping. The JSON is
     * made storable as the answer's text is ({@link StorableText}: an unpaired surrogate, which no
     * store holds and no request can carry, becomes U+FFFD); otherwise it is exactly what streamed.
     */
    public ProviderReplay replay() {
        return parts.isEmpty() ? null : new ProviderReplay(GeminiRequest.PARTS_REPLAY, StorableText.clean(Json.write(parts)));
    }
}
