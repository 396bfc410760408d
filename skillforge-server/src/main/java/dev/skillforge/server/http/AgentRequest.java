package dev.skillforge.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.core.transcript.Entry;
import dev.skillforge.core.transcript.StorableText;
import dev.skillforge.server.document.AttachedDocument;
import dev.skillforge.server.document.Upload;
import dev.skillforge.server.document.UploadsJson;
import dev.skillforge.server.json.Json;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The stateless agent request of {@code POST /api/agent}: the whole history as
 * {@code {"messages":[{"role":"user"|"assistant"|"tool","content":"…"}]}}, ending with the user's new
 * message. Assistant and tool contents must be sent back exactly as the {@code raw-content} and
 * {@code tool-output} events gave them, or provider caches miss. A user message may carry {@code attachments}
 * ({@link UploadsJson}): their text is extracted again on every request, the same way, so the bytes are the same.
 */
record AgentRequest(List<Entry> messages, String conversationId, List<AttachedDocument> newDocuments) {

    public static final int MAX_MESSAGES = 10_000;

    /** The new message: the last one. */
    public String newMessage() {
        return messages.getLast().content();
    }

    /**
     * Reads the body. With {@code "conversationId"} (the seeds' {@code continuation_id}) the server
     * holds the history: {@code messages} may then hold just the new user message, or
     * {@code "content"} may carry it.
     *
     * @param documents reads the files of each message (once the rest of the body is known to be valid)
     */
    public static AgentRequest from(JsonNode body, Function<List<List<Upload>>, List<List<AttachedDocument>>> documents) {
        JsonNode conversationId = body.get("conversationId");
        if (conversationId != null && !conversationId.isNull()) {
            if (!conversationId.isTextual()) {
                throw ApiException.badRequest("invalid_request", "'conversationId' must be a string, not " + kind(conversationId));
            }
            JsonNode content = body.get("content");
            if (content != null) {
                if (!content.isTextual()) {
                    throw ApiException.badRequest("invalid_request", "'content' must be a string, not " + kind(content));
                }
                List<AttachedDocument> read = documents.apply(List.of(UploadsJson.fromJson(body.get("attachments"), "attachments"))).getFirst();
                if (content.asText().isBlank() && read.isEmpty()) {
                    throw ApiException.badRequest("invalid_request", "The message is empty");
                }
                return new AgentRequest(List.of(user(content.asText(), read)), conversationId.asText(), read);
            }
            AgentRequest history = messages(body, documents);
            return new AgentRequest(history.messages(), conversationId.asText(), history.newDocuments());
        }
        return messages(body, documents);
    }

    private static Entry.User user(String text, List<AttachedDocument> documents) {
        return new Entry.User(text, documents.stream().map(AttachedDocument::attachment).toList());
    }

    private static AgentRequest messages(JsonNode body, Function<List<List<Upload>>, List<List<AttachedDocument>>> documents) {
        JsonNode messages = body.get("messages");
        if (messages == null) {
            throw ApiException.badRequest("invalid_request", "'messages' is missing: send {\"messages\":[{\"role\":\"user\",\"content\":\"…\"}]}");
        }
        if (!messages.isArray()) {
            throw ApiException.badRequest("invalid_request", "'messages' must be an array, not " + kind(messages));
        }
        if (messages.isEmpty()) {
            throw ApiException.badRequest("invalid_request", "'messages' is empty: it must end with the user's message");
        }
        if (messages.size() > MAX_MESSAGES) {
            throw ApiException.badRequest("invalid_request", "'messages' has " + messages.size() + " entries; the limit is " + MAX_MESSAGES);
        }
        List<Entry> entries = new ArrayList<>(messages.size());
        List<List<Upload>> uploads = new ArrayList<>(messages.size());
        for (int i = 0; i < messages.size(); i++) {
            uploads.add(uploads(messages.get(i), i));
            entries.add(entry(messages.get(i), i, List.of()));
        }
        if (!(entries.getLast() instanceof Entry.User last)) {
            throw ApiException.badRequest("invalid_request", "The last message must be the user's (role \"user\")");
        }
        if (last.content().isBlank() && uploads.getLast().isEmpty()) {
            throw ApiException.badRequest("invalid_request", "The last message is empty");
        }
        List<List<AttachedDocument>> read = documents.apply(uploads);
        for (int i = 0; i < entries.size(); i++) {
            if (!read.get(i).isEmpty()) {
                entries.set(i, user(entries.get(i).content(), read.get(i)));
            }
        }
        return new AgentRequest(List.copyOf(entries), null, read.getLast());
    }

    /** The files attached to a user message (not read yet); other roles cannot carry any. */
    private static List<Upload> uploads(JsonNode message, int index) {
        JsonNode attachments = message.isObject() ? message.get("attachments") : null;
        if (attachments == null || attachments.isNull()) {
            return List.of();
        }
        if (!"user".equals(message.path("role").asText())) {
            throw ApiException.badRequest("invalid_request", "messages[" + index + "].attachments: only user messages carry attachments");
        }
        return UploadsJson.fromJson(attachments, "messages[" + index + "].attachments");
    }

    private static Entry entry(JsonNode message, int index, List<AttachedDocument> documents) {
        String where = "messages[" + index + "]";
        if (!message.isObject()) {
            throw ApiException.badRequest("invalid_request", where + " must be an object, not " + kind(message));
        }
        JsonNode role = message.get("role");
        JsonNode content = message.get("content");
        if (role == null || !role.isTextual()) {
            throw ApiException.badRequest("invalid_request", where + ".role must be a string: \"user\", \"assistant\" or \"tool\"");
        }
        if (content == null || !content.isTextual()) {
            throw ApiException.badRequest("invalid_request", where + ".content must be a string, not " + (content == null ? "missing" : kind(content)));
        }
        String text = content.asText();
        return switch (role.asText()) {
            case "user" -> user(text, documents);
            case "assistant" -> new Entry.Assistant(text);
            case "tool" -> new Entry.Tool(text);
            case "" -> throw ApiException.badRequest("invalid_request", where + ".role is empty: use \"user\", \"assistant\" or \"tool\"");
            default -> throw ApiException.badRequest("invalid_request",
                    where + ".role \"" + abbreviate(role.asText()) + "\" is unknown: use \"user\", \"assistant\" or \"tool\"");
        };
    }

    static String kind(JsonNode node) {
        return Json.kind(node);
    }

    private static String abbreviate(String text) {
        return StorableText.abbreviate(text, 40);
    }
}
