package dev.skillforge.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.server.json.Json;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Reads a JSON request body with a size limit, turning every way it can be wrong into a clear 4xx. */
public final class RequestBodies {

    private RequestBodies() {
    }

    /** Like {@link #readJsonObject} but an empty body reads as an empty object. */
    public static JsonNode readJsonObjectOrEmpty(InputStream in, int maxBytes) {
        byte[] bytes = readLimited(in, maxBytes);
        return bytes.length == 0 ? Json.object() : parseObject(bytes);
    }

    public static JsonNode readJsonObject(InputStream in, int maxBytes) {
        return parseObject(readLimited(in, maxBytes));
    }

    private static byte[] readLimited(InputStream in, int maxBytes) {
        byte[] bytes;
        try {
            bytes = in.readNBytes(maxBytes + 1);
        } catch (IOException e) {
            // Jetty's message is not for clients (it may name internals): say what happened in general terms.
            throw ApiException.badRequest("unreadable_body", "The request body could not be read: it ended early, was malformed"
                    + " or came too slowly");
        }
        if (bytes.length > maxBytes) {
            throw new ApiException(413, "body_too_large", "The request body is over the limit of " + maxBytes + " bytes");
        }
        return bytes;
    }

    private static JsonNode parseObject(byte[] bytes) {
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw ApiException.badRequest("invalid_encoding", "The request body is not valid UTF-8");
        }
        if (text.isBlank()) {
            throw ApiException.badRequest("empty_body", "The request body is empty; a JSON object is expected");
        }
        JsonNode json;
        try {
            json = Json.parse(text);
        } catch (JsonProcessingException e) {
            var at = e.getLocation();
            String where = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
            throw ApiException.badRequest("invalid_json", "Malformed JSON" + where + ": " + e.getOriginalMessage());
        }
        if (json == null || !json.isObject()) {
            throw ApiException.badRequest("invalid_request", "The request body must be a JSON object");
        }
        return json;
    }
}
