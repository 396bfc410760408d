package dev.skillforge.server.http;

import dev.skillforge.server.config.SecuritySettings;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import jakarta.servlet.http.HttpServletRequest;
import org.eclipse.jetty.http.HttpException;

import java.util.ArrayList;
import java.util.List;

/**
 * The locked doors of the HTTP server, one small check each, run in this order before every route and
 * every static file:
 * <ol>
 *   <li>{@link SecurityHeaders}: the headers every response carries, and CORS headers for configured origins;</li>
 *   <li>{@link HostCheck}: the {@code Host} must be loopback, {@code localhost} or an allowed name (against DNS rebinding);</li>
 *   <li>{@link CorsPolicy}: a preflight is answered the same whatever its path, before authentication;</li>
 *   <li>{@link Authentication}: with {@code FORGE_API_TOKEN}, the token or the page's session cookie, and signing in;</li>
 *   <li>{@link OriginCheck}: no state-changing request from another site's page;</li>
 *   <li>{@link ContentTypeCheck}: request bodies are JSON.</li>
 * </ol>
 * A refusal is an {@link ApiException} (a JSON error); an answer that ends the request early (a preflight,
 * the sign-in page, the redirect after signing in) is written by its check, which skips the rest. Jetty's
 * limits for idle, slow and oversized requests are {@link JettyLimits}. Without a token (allowed on loopback
 * only, see {@link SecuritySettings#checkBinding}) everything is open to this machine.
 */
public final class HttpSecurity {

    /** The page's session cookie. */
    public static final String SESSION_COOKIE = Authentication.SESSION_COOKIE;
    /** The one answer for anything not found, or not authenticated, under {@code /api} on a server with a token. */
    public static final String NOT_FOUND_MESSAGE = "Nothing here: no such conversation, skill or endpoint, or no valid API token";

    private final SecuritySettings settings;
    private final CorsPolicy cors;
    private final HostCheck hosts;
    private final OriginCheck origins;
    /** {@code null} on a server without a token. */
    private final Authentication authentication;

    public HttpSecurity(SecuritySettings settings) {
        this.settings = settings;
        this.cors = new CorsPolicy(settings.corsOrigins());
        this.hosts = new HostCheck(settings.allowedHosts(), settings.apiToken() != null);
        this.origins = new OriginCheck(cors);
        this.authentication = settings.apiToken() == null ? null : new Authentication(settings.apiToken(), origins);
    }

    public boolean requiresToken() {
        return authentication != null;
    }

    /** True when the request carried the token (always, on a server without one). */
    public static boolean isAuthenticated(Context ctx) {
        return !Boolean.FALSE.equals(ctx.attribute(Authentication.ATTRIBUTE));
    }

    /**
     * Whether a 404 must not say what is missing: on a server with a token, every 404 (an unknown id, name or path, a
     * missing or wrong token) is the same answer, so nothing can be probed. Without a token, everything is open to this
     * machine anyway, and a 404 says what it did not find.
     */
    static boolean hidesWhatIsMissing(Context ctx) {
        return ctx.attribute(Authentication.ATTRIBUTE) != null;
    }

    /** The answer to every unauthenticated API request, and to every unknown id, name or path on a server with a token. */
    public static ApiException notFound() {
        return new ApiException(404, "not_found", NOT_FOUND_MESSAGE);
    }

    /** Jetty's limits, the checks before every route, and the sign-in form's route. */
    void register(JavalinConfig config) {
        JettyLimits.apply(config, settings.connections());
        List<Handler> checks = new ArrayList<>(List.of(new SecurityHeaders(cors), hosts, cors));
        if (authentication != null) {
            checks.add(authentication);
            config.routes.post(Authentication.SIGN_IN_PATH, authentication::signIn);
        }
        checks.add(origins);
        checks.add(new ContentTypeCheck());
        checks.forEach(config.routes::before);
        // Jetty's verdicts on a request met while a route reads it (a body too slow, malformed chunking): the client's
        // fault, answered as such, never as a 500 and never with Jetty's wording.
        config.routes.exception(HttpException.RuntimeException.class, (e, ctx) -> {
            int status = e.getCode() >= 400 && e.getCode() < 500 ? e.getCode() : 400;
            ApiServer.error(ctx, status, status == 408 ? "request_timeout" : "bad_request",
                    status == 408 ? "The request body came too slowly" : "The request could not be read");
        });
    }

    /**
     * The same doors for a request that a servlet of its own answers, outside Javalin's routes (the MCP
     * endpoint): an allowed {@code Host}, the token as {@code Authorization: Bearer} when there is one
     * (programs only, no page cookie), and, whatever the method, no {@code Origin} of another site.
     *
     * @return the refusal to answer with ({@code 401} without the token, {@code 403} for a foreign host or origin), or
     *         {@code null} when the request may pass
     */
    public ApiException refusal(HttpServletRequest request) {
        ApiException host = hosts.refusal(request.getHeader("Host"));
        if (host != null) {
            return host;
        }
        if (authentication != null && !authentication.hasBearerToken(request.getHeader("Authorization"))) {
            return new ApiException(401, "unauthorized", "This server needs its API token: send Authorization: Bearer TOKEN");
        }
        return origins.refusal(request.getHeader("Origin"), request.getHeader("Host"));
    }
}
