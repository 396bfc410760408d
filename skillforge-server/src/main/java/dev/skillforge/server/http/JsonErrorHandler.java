package dev.skillforge.server.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.server.json.Json;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Jetty's own error answers (a malformed request line, a NUL or an undecodable escape in the path,
 * a bad {@code Content-Length}, headers over the limit…), which never reach a route: JSON like every
 * other error of this server, {@code {"error":{"code":"bad_request","message":"Bad Request"}}},
 * with the security headers, and nothing from the request or the server in them (no path, no
 * exception text, no stack, no version). A request line with an unknown HTTP version is answered
 * 400, not Jetty's 505: it is a malformed request like any other, and this server answers 5xx only
 * for its own failures.
 */
final class JsonErrorHandler extends ErrorHandler {

    JsonErrorHandler() {
        setShowStacks(false);
        setShowCauses(false);
        setShowMessageInTitle(false);
        setShowOrigin(false);
    }

    /** The body for an error status: a code derived from the standard reason phrase, and the phrase. */
    static byte[] body(int status) {
        String reason = HttpStatus.getMessage(status);
        if (reason == null || reason.isBlank()) {
            reason = "Error " + status;
        }
        ObjectNode body = Json.object();
        body.putObject("error").put("code", reason.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_").replaceAll("^_|_$", ""))
                .put("message", reason);
        return Json.write(body).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    protected void generateResponse(Request request, Response response, int code, String message, Throwable cause, Callback callback) {
        if (code == HttpStatus.HTTP_VERSION_NOT_SUPPORTED_505) {
            // A request line that names no HTTP version we speak is the client's mistake: 4xx, like every malformed request.
            code = HttpStatus.BAD_REQUEST_400;
            response.setStatus(code);
        }
        HttpFields.Mutable headers = response.getHeaders();
        headers(headers);
        response.write(true, ByteBuffer.wrap(body(code)), callback);
    }

    /** Errors found while parsing, before there is a request: answered from these bytes. */
    @Override
    public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
        headers(fields);
        return ByteBuffer.wrap(body(status));
    }

    private static void headers(HttpFields.Mutable headers) {
        headers.put(HttpHeader.CONTENT_TYPE, "application/json");
        headers.put(new HttpField(HttpHeader.CACHE_CONTROL, "no-store"));
        headers.put("Content-Security-Policy", ApiServer.CONTENT_SECURITY_POLICY);
        headers.put("X-Content-Type-Options", "nosniff");
        headers.put("Referrer-Policy", "no-referrer");
        headers.put("X-Frame-Options", "DENY");
    }
}
