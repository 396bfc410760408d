package dev.skillforge.server.mcp;

import dev.skillforge.server.http.ApiException;
import dev.skillforge.server.http.HttpSecurity;
import dev.skillforge.server.json.Json;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The locked door of {@code /mcp}, before the SDK's servlet sees a request: the API's rules
 * ({@link HttpSecurity#refusal}: the bearer token, or a loopback {@code Host} on a server without one;
 * no {@code Origin} of another site, on any method, as the MCP specification requires against DNS
 * rebinding), a body declared as JSON, and the body limit (a declared length is refused before it is
 * read; the servlet stops reading past the limit too). Refusals are the API's JSON errors.
 */
final class McpDoorFilter extends HttpFilter {

    private final HttpSecurity security;
    private final int maxBodyBytes;

    McpDoorFilter(HttpSecurity security, int maxBodyBytes) {
        this.security = security;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain) throws IOException, ServletException {
        response.setHeader("X-Content-Type-Options", "nosniff");
        response.setHeader("Cache-Control", "no-store");
        ApiException refusal = security.refusal(request);
        if (refusal == null) {
            refusal = bodyRefusal(request);
        }
        if (refusal != null) {
            refuse(response, refusal);
            return;
        }
        chain.doFilter(request, response);
    }

    private ApiException bodyRefusal(HttpServletRequest request) {
        if (request.getContentLengthLong() > maxBodyBytes) {
            return new ApiException(413, "body_too_large", "The request body is over the limit of " + maxBodyBytes + " bytes");
        }
        String type = request.getContentType();
        boolean hasBody = request.getContentLengthLong() > 0 || request.getHeader("Transfer-Encoding") != null;
        if (hasBody && (type == null || !mediaType(type).equals("application/json"))) {
            return new ApiException(415, "unsupported_media_type", "Send the body as JSON, with Content-Type: application/json");
        }
        return null;
    }

    private static void refuse(HttpServletResponse response, ApiException refusal) throws IOException {
        if (refusal.status() == 401) {
            response.setHeader("WWW-Authenticate", "Bearer realm=\"skillforge\"");
        }
        var body = Json.object();
        body.putObject("error").put("code", refusal.code()).put("message", refusal.getMessage());
        response.setStatus(refusal.status());
        response.setContentType("application/json");
        response.getOutputStream().write(Json.write(body).getBytes(StandardCharsets.UTF_8));
    }

    private static String mediaType(String contentType) {
        int semicolon = contentType.indexOf(';');
        return (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).strip().toLowerCase(Locale.ROOT);
    }
}
