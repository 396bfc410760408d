package dev.skillforge.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.server.document.DocumentLimits;
import dev.skillforge.server.document.Upload;

import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * The {@code attachments} of a message as JSON: {@code [{"name": "notes.pdf", "mediaType": "application/pdf",
 * "data": "<base64>"}]} ({@code mediaType} may be left out: the name's extension then decides).
 */
final class AttachmentUploads {

    private AttachmentUploads() {
    }

    /** The uploads of {@code attachments} (absent or null: none); {@code where} names the field in errors. */
    static List<Upload> fromJson(JsonNode attachments, String where) {
        if (attachments == null || attachments.isNull()) {
            return List.of();
        }
        if (!attachments.isArray()) {
            throw invalid("'" + where + "' must be an array of {\"name\", \"mediaType\", \"data\"}, not " + AgentRequest.kind(attachments));
        }
        if (attachments.size() > DocumentLimits.MAX_FILES) {
            throw new ApiException(413, "attachment_too_large", attachments.size() + " files are attached; the limit is "
                    + DocumentLimits.MAX_FILES + " per message");
        }
        List<Upload> uploads = new ArrayList<>(attachments.size());
        for (int i = 0; i < attachments.size(); i++) {
            JsonNode item = attachments.get(i);
            String at = where + "[" + i + "]";
            if (!item.isObject()) {
                throw invalid(at + " must be an object, not " + AgentRequest.kind(item));
            }
            String name = text(item, "name", at, true);
            String mediaType = text(item, "mediaType", at, false);
            uploads.add(new Upload(name, mediaType, base64(text(item, "data", at, true), at + ".data")));
        }
        return uploads;
    }

    private static String text(JsonNode item, String field, String at, boolean required) {
        JsonNode value = item.get(field);
        if (value == null || value.isNull()) {
            if (required) {
                throw invalid(at + "." + field + " is missing");
            }
            return "";
        }
        if (!value.isTextual()) {
            throw invalid(at + "." + field + " must be a string, not " + AgentRequest.kind(value));
        }
        return value.asText();
    }

    /** Standard base64 (line breaks and spaces allowed, as MIME encoders write them); anything else is refused. */
    static byte[] base64(String data, String at) {
        try {
            return Base64.getDecoder().decode(data.replaceAll("[\\r\\n\\t ]", ""));
        } catch (IllegalArgumentException e) {
            throw invalid(at + " is not valid base64 (" + e.getMessage() + ")");
        }
    }

    private static ApiException invalid(String message) {
        return ApiException.badRequest("invalid_attachment", message);
    }
}
