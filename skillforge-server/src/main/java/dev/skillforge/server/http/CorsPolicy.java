package dev.skillforge.server.http;

import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.http.HandlerType;

import java.util.List;
import java.util.Locale;

/**
 * CORS for the origins of {@code FORGE_CORS_ORIGINS}, without credentials (their pages send the
 * bearer token, not the cookie).
 *
 * <p>A preflight ({@code OPTIONS} with {@code Origin} and {@code Access-Control-Request-Method})
 * carries no credentials, so its answer must tell nothing about the server's routes: every
 * preflight, to any path, is answered here before any route is looked at, and the same way for
 * every path. For a configured origin: {@code 204} with the methods and request headers this API
 * uses, which is all a browser needs before it sends the real request with the token; for any
 * other origin (or when none is configured): {@code 403 cross_origin}. Every other response to a
 * configured origin carries {@code Access-Control-Allow-Origin}, errors included.
 */
final class CorsPolicy implements Handler {

    private static final String ALLOWED_METHODS = "GET, POST, PUT, PATCH, DELETE";
    /** What the page and API clients send: the token, JSON bodies, and where an event stream resumes. */
    private static final String ALLOWED_HEADERS = "Authorization, Content-Type, Last-Event-ID";
    private static final String MAX_AGE_SECONDS = "600";

    private final List<String> origins;

    /** @param origins configured origins, in lower case */
    CorsPolicy(List<String> origins) {
        this.origins = List.copyOf(origins);
    }

    boolean allows(String origin) {
        return origin != null && origins.contains(origin.toLowerCase(Locale.ROOT));
    }

    static boolean isPreflight(Context ctx) {
        return ctx.method() == HandlerType.OPTIONS && ctx.header("Origin") != null && ctx.header("Access-Control-Request-Method") != null;
    }

    /** Lets a configured origin's page read this response; with origins configured, caches keep answers apart by origin. */
    void decorate(Context ctx) {
        if (origins.isEmpty()) {
            return;
        }
        ctx.header("Vary", "Origin");
        String origin = ctx.header("Origin");
        if (allows(origin)) {
            ctx.header("Access-Control-Allow-Origin", origin);
        }
    }

    /** Answers a preflight, whatever its path (the same for routes that exist and routes that do not), before authentication. */
    @Override
    public void handle(Context ctx) {
        if (!isPreflight(ctx)) {
            return;
        }
        ctx.header("Cache-Control", "no-store"); // as under /api: nothing tells one path from another
        if (!allows(ctx.header("Origin"))) {
            throw new ApiException(403, "cross_origin", "Requests from another site are refused: the Origin is not one of this"
                    + " server's CORS origins");
        }
        ctx.status(204)
                .header("Access-Control-Allow-Methods", ALLOWED_METHODS)
                .header("Access-Control-Allow-Headers", ALLOWED_HEADERS)
                .header("Access-Control-Max-Age", MAX_AGE_SECONDS);
        ctx.skipRemainingHandlers();
    }
}
