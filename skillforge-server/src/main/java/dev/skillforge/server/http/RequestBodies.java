package dev.skillforge.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.server.conversation.MessageLimit;
import dev.skillforge.server.document.DocumentLimits;
import dev.skillforge.server.json.Json;
import jakarta.servlet.http.HttpServletRequest;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads a JSON request body with a size limit, turning every way it can be wrong into a clear 4xx. */
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
        byte[] bytes = readLimited(request, maxBytes);
        return bytes.length == 0 ? Json.object() : parseObject(bytes);
    }

    public static JsonNode readJsonObject(HttpServletRequest request, int maxBytes) {
        return parseObject(readLimited(request, maxBytes));
    }

    /**
     * The body's bytes, at most {@code maxBytes}: a body over the limit is read up to one byte past it (so a client
     * still sending gets the answer rather than a broken pipe) and refused with {@code 413 body_too_large}.
     *
     * @throws ApiException 413 over the limit; 400 {@code unreadable_body} when it ends early, is malformed or too slow
     */
    public static byte[] readLimited(HttpServletRequest request, int maxBytes) {
        long declared = request.getContentLengthLong();
        byte[] bytes;
        try {
            // A declared length is read to its last byte and no further. Jetty checks the minimum data rate before every
            // read but the first, so a last read that would only find the end of a small body failed it ("came too
            // slowly", 408) after a pause of some milliseconds on a busy server, though the whole body had come at once.
            bytes = request.getInputStream().readNBytes((int) (declared >= 0 ? Math.min(declared, maxBytes + 1L) : maxBytes + 1L));
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
            throw ApiException.badRequest("invalid_json", "Malformed JSON" + where + ": " + problem(e));
        }
        if (json == null || !json.isObject()) {
            throw ApiException.badRequest("invalid_request", "The request body must be a JSON object");
        }
        return json;
    }

    private static final Pattern UNEXPECTED = Pattern.compile("^Unexpected character \\('(.{1,2})' \\(code \\d+\\)\\)");
    private static final Pattern UNRECOGNIZED = Pattern.compile("^Unrecognized token '([^']{0,40})");

    /** What is wrong, in words a person sending JSON knows, not the parser's internals (character codes, expectations). */
    static String problem(JsonProcessingException e) {
        String message = String.valueOf(e.getOriginalMessage());
        if (e instanceof JsonEOFException || message.startsWith("Unexpected end-of-input")) {
            return "it ends too early (a string, array or object is not closed)";
        }
        Matcher unexpected = UNEXPECTED.matcher(message);
        if (unexpected.find()) {
            return "unexpected character '" + unexpected.group(1) + "'";
        }
        Matcher unrecognized = UNRECOGNIZED.matcher(message);
        if (unrecognized.find()) {
            return "unknown word '" + unrecognized.group(1) + "' (text must be in double quotes)";
        }
        return "this is not valid JSON";
    }
}
