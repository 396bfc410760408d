package dev.skillforge.server.document;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.server.json.Json;

import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * The {@code attachments} of a message as JSON: {@code [{"name": "notes.pdf", "mediaType": "application/pdf",
 * "data": "<base64>"}]} ({@code mediaType} may be left out: the name's extension then decides).
 */
public final class UploadsJson {

    private UploadsJson() {
    }

    /**
     * The uploads of {@code attachments} (absent or null: none); {@code where} names the field in errors.
     *
     * @throws DocumentException INVALID for a malformed list, TOO_LARGE for too many files
     */
    public static List<Upload> fromJson(JsonNode attachments, String where) {
        if (attachments == null || attachments.isNull()) {
            return List.of();
        }
        if (!attachments.isArray()) {
            throw invalid("'" + where + "' must be an array of {\"name\", \"mediaType\", \"data\"}, not " + Json.kind(attachments));
        }
        if (attachments.size() > DocumentLimits.MAX_FILES) {
            throw DocumentException.tooLarge(attachments.size() + " files are attached; the limit is " + DocumentLimits.MAX_FILES
                    + " per message");
        }
        List<Upload> uploads = new ArrayList<>(attachments.size());
        for (int i = 0; i < attachments.size(); i++) {
            JsonNode item = attachments.get(i);
            String at = where + "[" + i + "]";
            if (!item.isObject()) {
                throw invalid(at + " must be an object, not " + Json.kind(item));
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
            throw invalid(at + "." + field + " must be a string, not " + Json.kind(value));
        }
        return value.asText();
    }

    /** Standard base64 (line breaks and spaces allowed, as MIME encoders write them); anything else is refused. */
    private static byte[] base64(String data, String at) {
        String compact = data.replaceAll("[\\r\\n\\t ]", "");
        try {
            return Base64.getDecoder().decode(compact);
        } catch (IllegalArgumentException e) {
            for (int i = 0; i < compact.length(); i++) {
                char c = compact.charAt(i);
                if (!(Character.isLetterOrDigit(c) && c < 128) && c != '+' && c != '/' && c != '=') {
                    throw invalid(at + " is not valid base64: it holds " + (c >= ' ' && c < 127 ? "'" + c + "'" : String.format("U+%04X", (int) c))
                            + " at index " + i + " (standard base64 uses A-Z, a-z, 0-9, + and /, padded with =)");
                }
            }
            throw invalid(at + " is not valid base64: its length or padding is wrong (is it cut short?)");
        }
    }

    private static DocumentException invalid(String message) {
        return DocumentException.invalid(message);
    }
}
