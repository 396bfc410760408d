package dev.skillforge.server.http;

import dev.skillforge.server.document.DocumentLimits;
import dev.skillforge.server.document.Upload;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * A new message as {@code multipart/form-data} (what the page's file picker sends): a text field
 * {@code content} and any number of file fields {@code attachments}. Read from a body already held
 * within its limit, so a malformed or hostile form is a clear 400 and nothing else.
 */
record MultipartMessage(String content, List<Upload> attachments) {

    static MultipartMessage parse(String contentType, byte[] body) {
        String boundary = parameter(contentType, "boundary");
        if (boundary == null || boundary.isEmpty() || boundary.length() > 200) {
            throw invalid("The multipart body has no boundary in its Content-Type");
        }
        byte[] delimiter = ("--" + boundary).getBytes(StandardCharsets.ISO_8859_1);
        int at = indexOf(body, delimiter, 0);
        if (at < 0) {
            throw invalid("The multipart body does not start with its boundary");
        }
        String content = null;
        List<Upload> uploads = new ArrayList<>();
        byte[] next = ("\r\n--" + boundary).getBytes(StandardCharsets.ISO_8859_1);
        int position = at + delimiter.length;
        while (true) {
            if (startsWith(body, position, "--")) {
                break; // the closing delimiter
            }
            if (!startsWith(body, position, "\r\n")) {
                throw invalid("The multipart body is malformed after a boundary");
            }
            int headersEnd = indexOf(body, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1), position + 2);
            int end = headersEnd < 0 ? -1 : indexOf(body, next, headersEnd + 4);
            if (end < 0) {
                throw invalid("The multipart body ends inside a part (its closing boundary is missing)");
            }
            String headers = new String(body, position + 2, headersEnd - position - 2, StandardCharsets.UTF_8);
            byte[] data = Arrays.copyOfRange(body, headersEnd + 4, end);
            String disposition = header(headers, "content-disposition");
            String field = disposition == null ? null : parameter(disposition, "name");
            if ("content".equals(field)) {
                content = new String(data, StandardCharsets.UTF_8);
            } else if ("attachments".equals(field)) {
                if (uploads.size() >= DocumentLimits.MAX_FILES) {
                    throw new ApiException(413, "attachment_too_large", "More than " + DocumentLimits.MAX_FILES
                            + " files are attached; the limit is " + DocumentLimits.MAX_FILES + " per message");
                }
                String filename = parameter(disposition, "filename");
                if (filename == null) {
                    throw invalid("An 'attachments' part has no filename");
                }
                String type = header(headers, "content-type");
                uploads.add(new Upload(filename, type == null ? "" : type, data));
            } else {
                throw invalid("Unknown form field " + (field == null ? "(unnamed)" : "'" + abbreviate(field) + "'")
                        + ": send 'content' and 'attachments'");
            }
            position = end + next.length;
        }
        return new MultipartMessage(content == null ? "" : content, List.copyOf(uploads));
    }

    private static String header(String headers, String name) {
        for (String line : headers.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).strip().toLowerCase(Locale.ROOT).equals(name)) {
                return line.substring(colon + 1).strip();
            }
        }
        return null;
    }

    /** A parameter of a header value ({@code name="value"} or {@code name=value}); quoted values may escape {@code "} and {@code \}. */
    static String parameter(String value, String name) {
        int i = value.indexOf(';');
        while (i >= 0 && i < value.length()) {
            int equals = value.indexOf('=', i);
            if (equals < 0) {
                return null;
            }
            String key = value.substring(i + 1, equals).strip().toLowerCase(Locale.ROOT);
            int start = equals + 1;
            StringBuilder parsed = new StringBuilder();
            int j = start;
            if (j < value.length() && value.charAt(j) == '"') {
                for (j++; j < value.length() && value.charAt(j) != '"'; j++) {
                    char c = value.charAt(j);
                    if (c == '\\' && j + 1 < value.length()) {
                        c = value.charAt(++j);
                    }
                    parsed.append(c);
                }
                j++;
            } else {
                for (; j < value.length() && value.charAt(j) != ';'; j++) {
                    parsed.append(value.charAt(j));
                }
            }
            if (key.equals(name)) {
                return parsed.toString().strip();
            }
            i = value.indexOf(';', j);
        }
        return null;
    }

    private static boolean startsWith(byte[] body, int at, String prefix) {
        return at + prefix.length() <= body.length && new String(body, at, prefix.length(), StandardCharsets.ISO_8859_1).equals(prefix);
    }

    private static int indexOf(byte[] data, byte[] pattern, int from) {
        outer:
        for (int i = from; i <= data.length - pattern.length; i++) {
            for (int j = 0; j < pattern.length; j++) {
                if (data[i + j] != pattern[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private static String abbreviate(String text) {
        return dev.skillforge.core.transcript.StorableText.abbreviate(text, 40);
    }

    private static ApiException invalid(String message) {
        return ApiException.badRequest("invalid_multipart", message);
    }
}
