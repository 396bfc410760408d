package dev.skillforge.server.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.server.http.ApiException;
import dev.skillforge.server.http.HttpSecurity;
import dev.skillforge.server.http.RequestBodies;
import dev.skillforge.server.json.Json;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
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
import java.util.Locale;

/**
 * The locked door of {@code /mcp}, before the SDK's servlet sees a request: the API's rules
 * ({@link HttpSecurity#mcpAccess}: a credential, or a loopback {@code Host} on a server without one; its caller is
 * noted for the tools ({@link McpCallers});
 * no {@code Origin} of another site, on any method, as the MCP specification requires against DNS
 * rebinding), a body declared as JSON, and the body limit. The body is read here (at most the limit), checked as a
 * JSON-RPC message ({@link IncomingMessage}: what the SDK could not read is answered here, with status 400, as a JSON-RPC
 * error that says what was wrong) and handed on, with its request id noted for the tool call ({@link RequestIds}); an
 * {@code initialize} while the most sessions are open is 503 ({@link McpSessions}). The door's own refusals are the
 * API's JSON errors.
 */
final class McpDoorFilter extends HttpFilter {

    private final HttpSecurity security;
    private final int maxBodyBytes;
    private final McpJsonMapper json;
    private final McpSessions sessions;

    McpDoorFilter(HttpSecurity security, int maxBodyBytes, McpJsonMapper json, McpSessions sessions) {
        this.security = security;
        this.maxBodyBytes = maxBodyBytes;
        this.json = json;
        this.sessions = sessions;
    }

    @Override
    protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain) throws IOException, ServletException {
        response.setHeader("X-Content-Type-Options", "nosniff");
        response.setHeader("Cache-Control", "no-store");
        try {
            HttpSecurity.McpAccess access = security.mcpAccess(request);
            if (access.refusal() != null) {
                refuse(response, access.refusal(), access.challenge());
                return;
            }
            request.setAttribute(McpCallers.KEY, access.caller());
            if (!hasBody(request)) {
                chain.doFilter(request, response);
                return;
            }
            requireJson(request);
            IncomingMessage message = IncomingMessage.check(RequestBodies.readLimited(request, maxBodyBytes), json);
            if (McpSchema.METHOD_INITIALIZE.equals(message.method()) && sessions.full()) {
                response.setHeader("Retry-After", "60");
                answer(response, 503, new MessageRefusal(MessageRefusal.SERVER_BUSY, "The server holds the most MCP sessions it keeps ("
                        + String.format("%,d", sessions.max()) + "): end one (DELETE /mcp with its Mcp-Session-Id) or wait for an idle one"
                        + " to be closed (within " + 2 * McpSessions.SWEEP.toMinutes() + " minutes)", message.id()).response());
                return;
            }
            request.setAttribute(RequestIds.KEY, message.method() == null ? null : message.id());
            chain.doFilter(new ReadBody(request, message.body()), response);
        } catch (ApiException refusal) {
            refuse(response, refusal, null);
        } catch (MessageRefusal refusal) {
            answer(response, 400, refusal.response());
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

    private static void refuse(HttpServletResponse response, ApiException refusal, String challenge) throws IOException {
        if (challenge != null) {
            response.setHeader("WWW-Authenticate", challenge);
        }
        var body = Json.object();
        body.putObject("error").put("code", refusal.code()).put("message", refusal.getMessage());
        answer(response, refusal.status(), body);
    }

    private static void answer(HttpServletResponse response, int status, JsonNode body) throws IOException {
        response.setStatus(status);
        response.setContentType("application/json");
        response.getOutputStream().write(Json.bytes(body));
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
