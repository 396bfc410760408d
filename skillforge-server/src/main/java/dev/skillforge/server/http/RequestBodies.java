package dev.skillforge.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.skillforge.server.conversation.MessageLimit;
import dev.skillforge.server.document.DocumentLimits;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.json.UntrustedJson;
import jakarta.servlet.http.HttpServletRequest;

import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Reads a request body within its size limit, turning every way it can be wrong into a clear 4xx. */
public final class RequestBodies {

    /**
     * The largest body that starts a turn: {@code /api/agent} with a whole history, or a new message
     * ({@code /messages}), with room for a message at {@link MessageLimit#MAX_BYTES} even when the
     * client's JSON encoder escapes every non-ASCII character (as ASCII-only encoders do).
     */
    public static final int MAX_TURN_BODY_BYTES = 4 * 1024 * 1024;

    /**
     * The largest body that starts a turn and may bring attachments ({@code /messages}, {@code /api/agent}): a turn
     * body plus every file of one message in base64 (4 bytes for every 3), with room for the JSON around them.
     */
    public static final int MAX_UPLOAD_BODY_BYTES = MAX_TURN_BODY_BYTES + (DocumentLimits.MAX_MESSAGE_BYTES / 3 + 1) * 4 + 64 * 1024;

    private RequestBodies() {
    }

    /** Like {@link #readJsonObject} but an empty body reads as an empty object. */
    public static JsonNode readJsonObjectOrEmpty(HttpServletRequest request, int maxBytes) {
        JsonNode json = readJson(request, maxBytes);
        return json.isMissingNode() ? Json.object() : object(json);
    }

    /**
     * The body as a JSON object, read as it arrives within {@code maxBytes} and {@link UntrustedJson}'s limits, so
     * neither a copy of the whole body nor a tree of more than {@value UntrustedJson#MAX_TOKENS} tokens is ever held.
     *
     * @throws ApiException 413 {@code body_too_large} over a limit; 400 {@code invalid_encoding}, {@code empty_body},
     *                      {@code invalid_json}, {@code invalid_request} (not an object) or {@code unreadable_body}
     */
    public static JsonNode readJsonObject(HttpServletRequest request, int maxBytes) {
        JsonNode json = readJson(request, maxBytes);
        if (json.isMissingNode()) {
            throw ApiException.badRequest("empty_body", "The request body is empty; a JSON object is expected");
        }
        return object(json);
    }

    /**
     * The body's bytes, at most {@code maxBytes}: a body over the limit is read up to one byte past it (so a client
     * still sending gets the answer rather than a broken pipe), without keeping it, and refused with
     * {@code 413 body_too_large}.
     *
     * @throws ApiException 413 over the limit; 400 {@code unreadable_body} when it ends early, is malformed or too slow
     */
    public static byte[] readLimited(HttpServletRequest request, int maxBytes) {
        LimitedBody body = body(request, maxBytes);
        try {
            return body.readAllBytes();
        } catch (LimitedBody.TooLarge e) {
            throw tooLarge(body, maxBytes);
        } catch (IOException e) {
            throw unreadable();
        }
    }

    private static JsonNode readJson(HttpServletRequest request, int maxBytes) {
        LimitedBody body = body(request, maxBytes);
        try {
            JsonNode json = UntrustedJson.readTree(new InputStreamReader(body, StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT)));
            return json == null ? MissingNode.getInstance() : json;
        } catch (LimitedBody.TooLarge e) {
            throw tooLarge(body, maxBytes);
        } catch (CharacterCodingException e) {
            body.drain();
            throw ApiException.badRequest("invalid_encoding", "The request body is not valid UTF-8");
        } catch (JsonProcessingException e) {
            body.drain();
            if (UntrustedJson.overLimit(e)) {
                throw new ApiException(413, "body_too_large", "The request body is too large to read: " + UntrustedJson.problem(e));
            }
            var at = e.getLocation();
            String where = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
            throw ApiException.badRequest("invalid_json", "Malformed JSON" + where + ": " + UntrustedJson.problem(e));
        } catch (IOException e) {
            throw unreadable();
        }
    }

    private static LimitedBody body(HttpServletRequest request, int maxBytes) {
        try {
            return new LimitedBody(request.getInputStream(), request.getContentLengthLong(), maxBytes);
        } catch (IOException e) {
            throw unreadable();
        }
    }

    private static ApiException tooLarge(LimitedBody body, int maxBytes) {
        body.drain();
        return new ApiException(413, "body_too_large", "The request body is over the limit of " + maxBytes + " bytes");
    }

    private static ApiException unreadable() {
        // Jetty's message is not for clients (it may name internals): say what happened in general terms.
        return ApiException.badRequest("unreadable_body", "The request body could not be read: it ended early, was malformed"
                + " or came too slowly");
    }

    private static JsonNode object(JsonNode json) {
        if (!json.isObject()) {
            throw ApiException.badRequest("invalid_request", "The request body must be a JSON object");
        }
        return json;
    }
}
