package dev.skillforge.server.mcp;

import dev.skillforge.server.http.RequestBodies;
import dev.skillforge.server.http.HttpSecurity;
import dev.skillforge.server.people.Caller;
import io.javalin.config.JavalinConfig;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import jakarta.servlet.DispatcherType;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletHolder;

import java.util.EnumSet;

/**
 * MCP's Streamable HTTP transport at {@value #PATH} of the HTTP server: the SDK's servlet
 * ({@link HttpServletStreamableServerTransportProvider}, an async servlet built for Servlet 6.1)
 * added to the servlet context of Javalin's Jetty 12 (ee10, Servlet 6.0) beside Javalin's own
 * servlet, behind {@link McpDoorFilter}: the API's token, host and origin rules and its body limit, messages checked
 * before the SDK reads them, and at most {@value McpSessions#MAX_SESSIONS} sessions, closed once idle ({@link McpSessions}).
 * Javalin's routes never see these requests, so its before-handlers do not apply to them.
 */
public final class McpHttpDoor {

    public static final String PATH = "/mcp";
    /**
     * A {@code tools/call} carries one new message, as {@code POST /api/conversations/{id}/messages} does: the same body
     * limit, and the message itself is held to the one message limit of every door ({@code MessageLimit}).
     */
    public static final int MAX_BODY_BYTES = RequestBodies.MAX_UPLOAD_BODY_BYTES; // a chat call may bring attachments

    private McpHttpDoor() {
    }

    /** Mounts {@code mcp} at {@value #PATH}; call while configuring the server. */
    public static void mount(JavalinConfig config, SkillForgeMcp mcp, HttpSecurity security) {
        ReactorThreads.daemonSingles(); // before the transport makes its session sweeper
        HttpServletStreamableServerTransportProvider transport = HttpServletStreamableServerTransportProvider.builder()
                .jsonMapper(mcp.json()).mcpEndpoint(PATH).maxRequestSize(MAX_BODY_BYTES).sessionSweepInterval(McpSessions.SWEEP)
                .contextExtractor(request -> RequestIds.context(request.getAttribute(RequestIds.KEY),
                        (Caller) request.getAttribute(McpCallers.KEY))).build();
        McpSessions sessions = new McpSessions(McpSessions.MAX_SESSIONS);
        transport.setSessionFactory(mcp.streamableSessions(transport.protocolVersions(), sessions));
        config.jetty.modifyServletContextHandler(context -> {
            ServletHolder servlet = new ServletHolder("mcp", transport);
            servlet.setAsyncSupported(true);
            context.addServlet(servlet, PATH);
            FilterHolder door = new FilterHolder(new McpDoorFilter(security, MAX_BODY_BYTES, mcp.json(), sessions));
            door.setAsyncSupported(true);
            context.addFilter(door, PATH, EnumSet.of(DispatcherType.REQUEST));
        });
    }
}
