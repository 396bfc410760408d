package dev.skillforge.server.http;

import dev.skillforge.server.access.Team;
import dev.skillforge.server.people.Caller;
import dev.skillforge.server.store.StoreException;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import jakarta.servlet.http.HttpServletRequest;
import org.eclipse.jetty.http.HttpException;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The locked doors of the HTTP server, one small check each, run in this order before every route and
 * every static file:
 * <ol>
 *   <li>{@link SecurityHeaders}: the headers every response carries, and CORS headers for configured origins;</li>
 *   <li>{@link HostCheck}: the {@code Host} must be loopback, {@code localhost} or an allowed name (against DNS rebinding);</li>
 *   <li>{@link CorsPolicy}: a preflight is answered the same whatever its path, before authentication;</li>
 *   <li>who is asking ({@link Callers}): on a team server ({@code FORGE_OIDC_ISSUER}), {@link TeamAuthentication} (a
 *       session or a personal access token); else with {@code FORGE_API_TOKEN}, {@link Authentication} (the token or
 *       the page's session cookie, and signing in); else this machine's one person, whoever asks;</li>
 *   <li>{@link OriginCheck}: no state-changing request from another site's page;</li>
 *   <li>{@link ContentTypeCheck}: request bodies are JSON.</li>
 * </ol>
 * A refusal is an {@link ApiException} (a JSON error); an answer that ends the request early (a preflight,
 * the sign-in page, the redirect after signing in) is written by its check, which skips the rest. Jetty's
 * limits for idle, slow and oversized requests are {@link JettyLimits}. Without a token (allowed on loopback
 * only: the server refuses to start otherwise) everything is open to this machine.
 */
public final class HttpSecurity {

    /** The page's session cookie. */
    public static final String SESSION_COOKIE = Authentication.SESSION_COOKIE;
    /** The one answer for anything not found, or not authenticated, under {@code /api} on a server with a token. */
    public static final String NOT_FOUND_MESSAGE = "Nothing here: no such conversation, skill or endpoint, or no valid API token";

    private final HttpSettings settings;
    private final CorsPolicy cors;
    private final HostCheck hosts;
    private final OriginCheck origins;
    /** {@code null} on a server without a token. */
    private final Authentication authentication;
    private final Optional<Team> team;

    /** The doors of a server without people: its token, if it has one, or open to this machine. */
    public HttpSecurity(HttpSettings settings) {
        this(settings, Optional.empty());
    }

    /** @param team the people of a team server, who sign in at its issuer; empty for one person */
    public HttpSecurity(HttpSettings settings, Optional<Team> team) {
        this.settings = settings;
        this.team = team;
        this.cors = new CorsPolicy(settings.corsOrigins());
        this.hosts = new HostCheck(settings.allowedHosts(), settings.apiToken() != null || team.isPresent());
        this.origins = new OriginCheck(cors, team.map(people -> people.settings().publicUrl()));
        this.authentication = settings.apiToken() == null ? null : new Authentication(settings.apiToken(), origins);
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
        if (team.isPresent()) {
            checks.add(new TeamAuthentication(team.get()));
        } else if (authentication != null) {
            checks.add(authentication);
            config.routes.post(Authentication.SIGN_IN_PATH, authentication::signIn);
        } else {
            checks.add(ctx -> Callers.set(ctx, Caller.LOCAL)); // loopback only: this machine's one person
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
     * Who may use the MCP endpoint, which a servlet of its own answers outside Javalin's routes.
     *
     * @param caller    who the request acts for, when it may pass
     * @param refusal   the answer instead ({@code 401} without a valid credential, {@code 403} for a foreign host or
     *                  origin), when it may not
     * @param challenge the {@code WWW-Authenticate} header of a {@code 401}
     */
    public record McpAccess(Caller caller, ApiException refusal, String challenge) {
        static McpAccess refused(ApiException refusal) {
            return new McpAccess(null, refusal, null);
        }
    }

    /**
     * The doors of the MCP endpoint: an allowed {@code Host}; whatever the method, no {@code Origin} of another site; and
     * a credential as {@code Authorization: Bearer} (programs only, no page cookie): on a team server a personal access
     * token or an access token the issuer made for this server's MCP address (the 401 names where to get one:
     * the protected resource metadata, RFC 9728), else the server's token when it has one.
     */
    public McpAccess mcpAccess(HttpServletRequest request) {
        ApiException refused = hosts.refusal(request.getHeader("Host"));
        if (refused == null) {
            refused = origins.refusal(request.getHeader("Origin"), request.getHeader("Host"));
        }
        if (refused != null) {
            return McpAccess.refused(refused);
        }
        String authorization = request.getHeader("Authorization");
        if (team.isPresent()) {
            return teamMcpAccess(team.get(), authorization);
        }
        if (authentication != null && !authentication.hasBearerToken(authorization)) {
            return new McpAccess(null, new ApiException(401, "unauthorized", "This server needs its API token: send Authorization: Bearer"
                    + " TOKEN"), "Bearer realm=\"skillforge\"");
        }
        return new McpAccess(Caller.LOCAL, null, null);
    }

    private static McpAccess teamMcpAccess(Team people, String authorization) {
        String metadata = "Bearer resource_metadata=\"" + people.settings().publicUrl().resolve(PeopleRoutes.METADATA_PATH + "/mcp") + "\"";
        if (authorization == null || authorization.length() <= 7 || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return new McpAccess(null, new ApiException(401, "unauthenticated", "Sign in: send Authorization: Bearer with an access token"
                    + " of the team's issuer for this server (its protected resource metadata says where), or a personal access token"),
                    metadata);
        }
        String token = authorization.substring(7).strip();
        try {
            Optional<Caller> caller = token.startsWith(Team.TOKEN_PREFIX) ? people.personalToken(token)
                    : Optional.of(people.issuerAccessToken(token));
            if (caller.isPresent()) {
                return new McpAccess(caller.get(), null, null);
            }
            return new McpAccess(null, new ApiException(401, "invalid_token", "This personal access token is unknown or revoked,"
                    + " or its person is disabled"), metadata + ", error=\"invalid_token\"");
        } catch (Team.RefusedToken e) {
            return new McpAccess(null, new ApiException(401, "invalid_token", "The access token is not accepted: " + e.getMessage()),
                    metadata + ", error=\"invalid_token\"");
        } catch (StoreException e) {
            return McpAccess.refused(new ApiException(503, "storage_unavailable", "The credential cannot be checked right now (the"
                    + " database cannot be read); try again shortly"));
        }
    }
}
