package dev.skillforge.server.mcp;

import dev.skillforge.server.http.ApiException;
import dev.skillforge.server.http.HttpSecurity;
import dev.skillforge.server.http.RequestBodies;
import dev.skillforge.server.json.Json;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The locked door of {@code /mcp}, before the SDK's servlet sees a request: the API's rules
 * ({@link HttpSecurity#refusal}: the bearer token, or a loopback {@code Host} on a server without one;
 * no {@code Origin} of another site, on any method, as the MCP specification requires against DNS
 * rebinding), a body declared as JSON, and the body limit. The body is read here (at most the limit)
 * and handed on as read, with its JSON-RPC request id noted for the tool call ({@link RequestIds}).
 * Refusals are the API's JSON errors.
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
        try {
            ApiException refusal = security.refusal(request);
            if (refusal != null) {
                throw refusal;
            }
            if (!hasBody(request)) {
                chain.doFilter(request, response);
                return;
            }
            requireJson(request);
            byte[] body = RequestBodies.readLimited(request, maxBodyBytes);
            request.setAttribute(RequestIds.KEY, RequestIds.inBody(body));
            chain.doFilter(new ReadBody(request, body), response);
        } catch (ApiException refusal) {
            refuse(response, refusal);
        }
    }

    private static boolean hasBody(HttpServletRequest request) {
        return request.getContentLengthLong() > 0 || request.getHeader("Transfer-Encoding") != null;
    }

    private static void requireJson(HttpServletRequest request) {
        String type = request.getContentType();
        if (type == null || !mediaType(type).equals("application/json")) {
            throw new ApiException(415, "unsupported_media_type", "Send the body as JSON, with Content-Type: application/json");
        }
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

    /** The request with its body already read. */
    private static final class ReadBody extends HttpServletRequestWrapper {

        private final byte[] body;

        ReadBody(HttpServletRequest request, byte[] body) {
            super(request);
            this.body = body;
        }

        @Override
        public ServletInputStream getInputStream() {
            ByteArrayInputStream in = new ByteArrayInputStream(body);
            return new ServletInputStream() {
                @Override
                public int read() {
                    return in.read();
                }

                @Override
                public int read(byte[] buffer, int offset, int length) {
                    return in.read(buffer, offset, length);
                }

                @Override
                public boolean isFinished() {
                    return in.available() == 0;
                }

                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setReadListener(ReadListener listener) {
                    throw new UnsupportedOperationException("the body is already read");
                }
            };
        }

        @Override
        public long getContentLengthLong() {
            return body.length;
        }

        @Override
        public int getContentLength() {
            return body.length;
        }
    }
}
