package dev.skillforge.server.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.server.document.DocumentException;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.web.Servers;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.staticfiles.JavalinStaticResourceHandler;
import io.javalin.http.staticfiles.Location;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * The HTTP server: the chat page's static files at {@code /} and {@code /webjars/…}, the security checks before every
 * route, then the {@link Door}s it is given; security headers (CSP, nosniff, no referrer) on every response. Every
 * refusal is JSON {@code {"error":{"code":…,"message":…}}} and is sent before any stream starts; errors never carry
 * stack traces.
 */
public final class ApiServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ApiServer.class);
    /** Marks a response whose JSON error is written, so the 404 handler leaves it alone. */
    private static final String ERROR_WRITTEN = "skillforge.error-written";

    /**
     * The page's Content-Security-Policy: only this server's own scripts, styles and connections, no
     * inline script or style, no plugins, no framing. Model output is untrusted and is rendered into
     * the page (sanitised); this is the second line of defence.
     */
    public static final String CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; "
            + "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
            + "form-action 'self'";

    private final Javalin app;
    private final List<Door> doors;

    private ApiServer(String host, int port, HttpSecurity security, List<Door> doors) {
        this.doors = List.copyOf(doors);
        this.app = Servers.start(host, port, config -> {
            config.http.prefer405over404 = true;
            // The chat page (src/main/resources/public) at /, its libraries from WebJars at /webjars/…, served by
            // Javalin's own handler: it reads them through the class loader, where Jetty's default mounts the 16,500
            // entries of the fat jar as a zip file system at start (about 200 ms of a one-second start).
            config.resourceHandler(new JavalinStaticResourceHandler());
            config.staticFiles.add(files -> {
                files.hostedPath = "/";
                files.directory = "/public";
                files.location = Location.CLASSPATH;
            });
            config.staticFiles.enableWebjars();
            security.register(config); // authentication, other sites, Jetty's limits: before every route
            this.doors.forEach(door -> door.register(config));
            config.routes.exception(ApiException.class, (e, ctx) -> error(ctx, e.status(), e.code(), e.getMessage(), e.problems()));
            config.routes.exception(DocumentException.class, (e, ctx) -> error(ctx, switch (e.kind()) {
                case INVALID -> 400;
                case TOO_LARGE -> 413;
                case UNSUPPORTED -> 415;
                case BUSY -> 503;
                case STOPPED -> 499; // the client has gone and reads no answer; nginx logs the same case as 499
            }, e.code(), e.getMessage()));
            config.routes.exception(Exception.class, (e, ctx) -> {
                log.error("unexpected failure on {} {}", ctx.method(), ctx.path(), e);
                error(ctx, 500, "internal_error", "The server failed to handle this request");
            });
            config.routes.error(404, ctx -> {
                if (ctx.attribute(ERROR_WRITTEN) == null) {
                    error(ctx, 404, "not_found", "No such endpoint: " + ctx.method() + " " + ctx.path());
                }
            });
            config.routes.error(405, ctx -> error(ctx, 405, "method_not_allowed", ctx.method() + " is not allowed on " + ctx.path()));
        });
    }

    /**
     * Starts the server on {@code host:port}: the page's files, then {@code security}'s checks before every route, then
     * each door's routes in order; every refusal as the JSON error body.
     */
    public static ApiServer start(String host, int port, HttpSecurity security, List<Door> doors) {
        return new ApiServer(host, port, security, doors);
    }

    public int port() {
        return app.port();
    }

    /**
     * Every route the API registered, as {@code METHOD /path} ({@code {param}} for path parameters, also those that
     * take slashes): what /openapi.json must describe.
     */
    public List<String> routes() {
        return app.unsafe.internalRouter.allHttpHandlers().stream().map(handler -> handler.endpoint)
                .filter(endpoint -> endpoint.method.isHttpMethod())
                .map(endpoint -> endpoint.method.name() + " " + endpoint.path.replaceAll("<([^>]+)>", "{$1}")).sorted().toList();
    }

    static void error(Context ctx, int status, String code, String message) {
        error(ctx, status, code, message, List.of());
    }

    /** The error body, with {@code problems} listed when there are some (never for a 404, which says nothing more). */
    static void error(Context ctx, int status, String code, String message, List<String> problems) {
        ctx.attribute(ERROR_WRITTEN, true);
        ObjectNode body = Json.object();
        if (status == 404) {
            code = "not_found";
            if (HttpSecurity.hidesWhatIsMissing(ctx)) {
                message = HttpSecurity.NOT_FOUND_MESSAGE; // one answer for an unknown id, name or path and a missing token
            }
        }
        ObjectNode error = body.putObject("error").put("code", code).put("message", message);
        if (!problems.isEmpty() && status != 404) {
            problems.forEach(error.putArray("problems")::add);
        }
        ctx.status(status).contentType("application/json").result(Json.write(body));
    }

    @Override
    public void close() {
        doors.forEach(Door::close); // the pages' change streams end now, not at their next ping
        Servers.stop(app, "the HTTP server");
    }
}
