package dev.skillforge.server.provider;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.server.json.Json;

import java.util.function.Function;

/**
 * The provider's own words from its error answers, read the same way for every wire format: the
 * formats differ only in where the error sits in a body and which field qualifies its message.
 */
public final class ProviderErrors {

    /** How much of an error body that is not JSON of a known shape is kept as the message. */
    private static final int MAX_TEXT_CHARS = 500;

    private ProviderErrors() {
    }

    /**
     * An error object or string in words: a string as it is; an object's {@code message}, then its
     * {@code qualifier} field in parentheses where it has one (OpenAI's {@code type}, Google's
     * {@code status}); an object without a message as its JSON.
     */
    public static String message(JsonNode error, String qualifier) {
        if (error.isTextual()) {
            return error.asText();
        }
        String message = Json.text(error, "message");
        if (message == null) {
            return Json.write(error);
        }
        String detail = Json.text(error, qualifier);
        return detail == null ? message : message + " (" + detail + ")";
    }

    /**
     * The message of an error body: what {@code fromJson} reads from it when it is JSON ({@code null}
     * for JSON of no shape it knows), otherwise the text itself, stripped and cut at 500 characters.
     */
    public static String fromBody(String body, Function<JsonNode, String> fromJson) {
        String text = body.strip();
        try {
            String message = fromJson.apply(Json.parse(text));
            if (message != null) {
                return message;
            }
        } catch (Exception notJson) {
            // fall through to the text itself
        }
        if (text.isEmpty()) {
            return "(no message)";
        }
        return text.length() > MAX_TEXT_CHARS ? text.substring(0, MAX_TEXT_CHARS) + "…" : text;
    }
}
