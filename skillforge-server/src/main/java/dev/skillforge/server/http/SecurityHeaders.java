package dev.skillforge.server.http;

import io.javalin.http.Context;
import io.javalin.http.Handler;

/**
 * The headers every response carries, pages, files, JSON and streams alike: the page's
 * Content-Security-Policy ({@link ApiServer#CONTENT_SECURITY_POLICY}), no sniffing, no referrer, no framing, no use by other sites'
 * pages; {@code no-store} under {@code /api}; and CORS headers for a configured origin ({@link CorsPolicy}).
 */
final class SecurityHeaders implements Handler {

    private final CorsPolicy cors;

    SecurityHeaders(CorsPolicy cors) {
        this.cors = cors;
    }

    @Override
    public void handle(Context ctx) {
        ctx.header("Content-Security-Policy", ApiServer.CONTENT_SECURITY_POLICY);
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.header("Referrer-Policy", "no-referrer");
        ctx.header("X-Frame-Options", "DENY");
        ctx.header("Cross-Origin-Resource-Policy", "same-origin");
        String path = ctx.path();
        if (path.equals("/api") || path.startsWith("/api/")) {
            ctx.header("Cache-Control", "no-store");
        }
        cors.decorate(ctx);
    }
}
