package dev.skillforge.server.http;

import dev.skillforge.server.access.Team;
import dev.skillforge.server.people.Caller;
import dev.skillforge.server.store.StoreException;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.http.HandlerType;

import java.util.Optional;

/**
 * Who is asking, on a team server ({@code FORGE_OIDC_ISSUER}): the page's session cookie {@value #SESSION_COOKIE}
 * (set by signing in at the issuer), or {@code Authorization: Bearer} with a personal access token, each checked
 * against the database at every request. Open without them: the probes, signing in, and the protected resource
 * metadata MCP clients read. Anything else without a valid credential gets:
 * <ul>
 *   <li>under {@code /api}: {@code 401 unauthenticated} (JSON), with {@code WWW-Authenticate};</li>
 *   <li>the page: a redirect to {@code /auth/login}; its other files: {@code 401}.</li>
 * </ul>
 * The MCP endpoint is guarded by {@link HttpSecurity#mcpAccess}, which also takes the issuer's access tokens.
 */
final class TeamAuthentication implements Handler {

    static final String SESSION_COOKIE = Authentication.SESSION_COOKIE;

    private final Team team;

    TeamAuthentication(Team team) {
        this.team = team;
    }

    @Override
    public void handle(Context ctx) {
        String path = ctx.path();
        if (isOpen(path)) {
            return;
        }
        Optional<Caller> caller;
        try {
            caller = credential(ctx);
        } catch (StoreException e) {
            throw new ApiException(503, "storage_unavailable", "Your sign-in cannot be checked right now (the database cannot be"
                    + " read); try again shortly");
        }
        if (caller.isPresent()) {
            Callers.set(ctx, caller.get());
            ctx.attribute(Authentication.ATTRIBUTE, true);
            return;
        }
        ctx.attribute(Authentication.ATTRIBUTE, false);
        if (path.equals("/api") || path.startsWith("/api/")) {
            ctx.header("WWW-Authenticate", "Bearer realm=\"skillforge\"");
            throw new ApiException(401, "unauthenticated", "Sign in first: open this server's page, or send Authorization: Bearer"
                    + " with a personal access token (POST /api/tokens makes one)");
        }
        if (ctx.method() == HandlerType.GET && (path.equals("/") || path.equals("/index.html"))) {
            ctx.header("Cache-Control", "no-store");
            ctx.redirect("/auth/login", io.javalin.http.HttpStatus.FOUND);
        } else {
            ctx.header("Cache-Control", "no-store");
            ctx.status(401).contentType("text/plain;charset=utf-8").result("Sign in first: open / in a browser");
        }
        ctx.skipRemainingHandlers();
    }

    /** The caller of the request's session cookie or personal access token, if one is valid. */
    private Optional<Caller> credential(Context ctx) {
        String authorization = ctx.header("Authorization");
        if (authorization != null && authorization.length() > 7 && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return team.personalToken(authorization.substring(7).strip());
        }
        return sessionSecret(ctx.header("Cookie")).flatMap(team::session);
    }

    static boolean isOpen(String path) {
        return path.equals("/healthz") || path.equals("/readyz") || path.equals("/auth/login") || path.equals("/auth/callback")
                || path.equals("/favicon.svg") || path.startsWith("/.well-known/oauth-protected-resource");
    }

    /** The value of the session cookie in a {@code Cookie} header, if there is one. */
    static Optional<String> sessionSecret(String header) {
        if (header == null) {
            return Optional.empty();
        }
        for (String part : header.split(";")) {
            String pair = part.strip();
            if (pair.startsWith(SESSION_COOKIE + "=") && pair.length() > SESSION_COOKIE.length() + 1 && pair.length() < 200) {
                return Optional.of(pair.substring(SESSION_COOKIE.length() + 1));
            }
        }
        return Optional.empty();
    }
}
