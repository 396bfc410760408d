package dev.skillforge.server.http;

import dev.skillforge.server.config.AllowedHosts;
import dev.skillforge.server.config.ConnectionLimits;
import dev.skillforge.server.config.SecuritySettings;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.server.ConnectionLimit;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.AbstractConnector;
import org.eclipse.jetty.server.Server;

import jakarta.servlet.http.HttpServletRequest;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Base64;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The locked doors of the HTTP server: authentication, the checks that stop other web sites from
 * using a browser against it, CORS, and Jetty's limits for idle, slow and oversized requests.
 *
 * <p><b>Authentication.</b> With {@code FORGE_API_TOKEN} set, every request needs it, as
 * {@code Authorization: Bearer TOKEN} (compared in constant time) or as the page's session cookie:
 * signing in once, with the form of the sign-in page ({@code POST /signin}) or by opening
 * {@code /?token=TOKEN}, sets {@value #SESSION_COOKIE} ({@code HttpOnly}, {@code SameSite=Strict},
 * a keyed hash of the token rather than the token) and redirects to {@code /}, so the page's own
 * requests carry it. Without it:
 * <ul>
 *   <li>anything under {@code /api} is {@code 404 not_found} with exactly the body and headers of an
 *       unknown conversation id, so a wrong token and a wrong id cannot be told apart;</li>
 *   <li>the page and its files are {@code 401} with a sign-in form (no script);</li>
 *   <li>{@code GET /healthz} stays open for load balancers but says only {@code {"status":"ok"}}
 *       (the provider and the command counts need the token).</li>
 * </ul>
 * Without a token (allowed on loopback only, see {@link SecuritySettings#checkBinding}) everything
 * is open to this machine; the {@code Host} header must then name a loopback address,
 * {@code localhost} or a name of {@code FORGE_ALLOWED_HOSTS} ({@link AllowedHosts}, never resolved),
 * so a web page cannot reach the server through DNS rebinding. With a token, the same check runs
 * when {@code FORGE_ALLOWED_HOSTS} is set.
 *
 * <p><b>Other sites.</b> A state-changing request ({@code POST}, {@code PUT}, {@code PATCH},
 * {@code DELETE}) carrying an {@code Origin} other than the server's own or a configured CORS
 * origin is {@code 403}; a request body that is not declared {@code application/json} is
 * {@code 415} (a browser form or {@code text/plain} post cannot be dressed as an API call). No CORS
 * headers are sent unless {@code FORGE_CORS_ORIGINS} names origins, and every CORS preflight is
 * answered the same whatever its path ({@link CorsPolicy}).
 *
 * <p><b>Limits.</b> Connections idle for {@link ConnectionLimits#idleTimeout()} are closed; a
 * connection's next request line and headers must be complete within
 * {@link ConnectionLimits#headerTimeout()} of its opening or its previous response, blank lines or
 * not ({@link RequestHeaderDeadline}), and stay under 16 KiB; request bodies must flow at 1 KiB/s at
 * least; at most {@value ConnectionLimits#MAX_CONNECTIONS} connections are open at once, and at most
 * {@link ConnectionLimits#maxPerClient()} from one client ({@link ClientConnectionLimit}); Jetty's own
 * error answers are JSON ({@link JsonErrorHandler}). The server sends no version header.
 */
public final class HttpSecurity {

    public static final String SESSION_COOKIE = "forge_session";
    /** The one answer for anything not found, or not authenticated, under {@code /api}. */
    public static final String NOT_FOUND_MESSAGE = "Nothing here: no such conversation, skill or endpoint, or no valid API token";
    public static final int MAX_REQUEST_HEADER_BYTES = 16 * 1024;
    public static final long MIN_REQUEST_BYTES_PER_SECOND = 1024;
    static final String AUTHENTICATED = "skillforge.authenticated";

    private static final Set<HandlerType> SAFE_METHODS = Set.of(HandlerType.GET, HandlerType.HEAD, HandlerType.OPTIONS);
    /** The sign-in page: a plain form, no script (the CSP allows none inline, and none is needed). */
    private static final String SIGN_IN_PAGE = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>SkillForge: sign in</title></head>
            <body><h1>This SkillForge server needs its API token</h1>
            <form method="post" action="/signin">
            <label>API token <input type="password" name="token" autocomplete="current-password" required autofocus></label>
            <button type="submit">Sign in</button>
            </form>
            <p>The token is the server's <code>FORGE_API_TOKEN</code>. A cookie keeps this browser signed in. Programs send
            <code>Authorization: Bearer TOKEN</code> instead.</p>
            </body></html>
            """;
    private static final int MAX_SIGN_IN_BODY_BYTES = 4096;

    private final byte[] tokenDigest;
    private final String sessionValue;
    private final CorsPolicy cors;
    private final AllowedHosts allowedHosts;
    /** Without a token, always; with one, when the operator named hosts. */
    private final boolean checksHost;
    private final ConnectionLimits connections;

    public HttpSecurity(SecuritySettings settings) {
        String token = settings.apiToken();
        this.tokenDigest = token == null ? null : sha256(token);
        this.sessionValue = token == null ? null : sessionValue(token);
        this.cors = new CorsPolicy(settings.corsOrigins());
        this.allowedHosts = settings.allowedHosts();
        this.checksHost = token == null || !allowedHosts.isLoopbackOnly();
        this.connections = settings.connections();
    }

    public boolean requiresToken() {
        return tokenDigest != null;
    }

    /**
     * Whether a 404 must not say what is missing: on a server with a token, every 404 (an unknown id, name or path, a
     * missing or wrong token) is the same answer, so nothing can be probed. Without a token, everything is open to this
     * machine anyway, and a 404 says what it did not find.
     */
    static boolean hidesWhatIsMissing(Context ctx) {
        return ctx.attribute(AUTHENTICATED) != null;
    }

    /** True when the request carried the token (always, on a server without one). */
    public static boolean isAuthenticated(Context ctx) {
        return !Boolean.FALSE.equals(ctx.attribute(AUTHENTICATED));
    }

    /** Jetty's limits, the JSON error handler, the connection limits, and the guard that runs before every route. */
    void register(JavalinConfig config) {
        config.jetty.modifyHttpConfiguration(http -> {
            http.setSendServerVersion(false);
            http.setSendXPoweredBy(false);
            http.setRequestHeaderSize(MAX_REQUEST_HEADER_BYTES);
            http.setMinRequestDataRate(MIN_REQUEST_BYTES_PER_SECOND);
        });
        AtomicReference<Server> server = new AtomicReference<>();
        AtomicReference<RequestHeaderDeadline> deadline = new AtomicReference<>();
        config.jetty.modifyServer(jetty -> {
            server.set(jetty);
            jetty.setErrorHandler(new JsonErrorHandler());
            jetty.addBean(new ConnectionLimit(ConnectionLimits.MAX_CONNECTIONS, jetty));
            deadline.set(new RequestHeaderDeadline(connections.headerTimeout(), jetty.getScheduler()));
            jetty.setHandler(deadline.get().handler()); // outermost: Javalin puts its own handlers inside it
        });
        ClientConnectionLimit perClient = new ClientConnectionLimit(connections.maxPerClient());
        config.events.serverStarting(() -> {
            for (Connector connector : server.get().getConnectors()) {
                if (connector instanceof AbstractConnector c) {
                    c.setIdleTimeout(connections.idleTimeout().toMillis());
                    c.addBean(perClient);
                    c.addBean(deadline.get());
                }
            }
        });
        config.routes.before(this::guard);
        config.routes.exception(EarlyAnswer.class, (answer, ctx) -> answer.writer.accept(ctx));
        // Jetty's verdicts on a request met while a route reads it (a body too slow, malformed chunking): the client's
        // fault, answered as such, never as a 500 and never with Jetty's wording.
        config.routes.exception(HttpException.RuntimeException.class, (e, ctx) -> {
            int status = e.getCode() >= 400 && e.getCode() < 500 ? e.getCode() : 400;
            ApiServer.error(ctx, status, status == 408 ? "request_timeout" : "bad_request",
                    status == 408 ? "The request body came too slowly" : "The request could not be read");
        });
    }

    /** Runs before every route and every static file. */
    private void guard(Context ctx) {
        ctx.header("X-Frame-Options", "DENY");
        ctx.header("Cross-Origin-Resource-Policy", "same-origin");
        String path = ctx.path();
        boolean api = path.equals("/api") || path.startsWith("/api/");
        if (api) {
            ctx.header("Cache-Control", "no-store");
        }
        cors.decorate(ctx);
        if (checksHost && !allowedHosts.allows(ctx.header("Host"))) {
            throw foreignHost();
        }
        if (CorsPolicy.isPreflight(ctx)) {
            throw cors.preflight(ctx); // before authentication: a preflight carries no credentials
        }
        if (tokenDigest != null) {
            boolean authenticated = hasBearerToken(ctx.header("Authorization")) || hasSessionCookie(ctx);
            ctx.attribute(AUTHENTICATED, authenticated);
            if (ctx.method() == HandlerType.POST && path.equals("/signin")) {
                checkOrigin(ctx);
                signIn(ctx, formToken(ctx)); // signed in: redirected to the page
                throw EarlyAnswer.signInPage();
            }
            if (!authenticated) {
                if (path.equals("/healthz")) {
                    return; // open, and says only "ok"
                }
                if (api) {
                    throw notFound();
                }
                if (ctx.method() == HandlerType.GET && (path.equals("/") || path.equals("/index.html"))) {
                    signIn(ctx, queryToken(ctx));
                }
                throw EarlyAnswer.signInPage();
            }
        }
        if (!SAFE_METHODS.contains(ctx.method())) {
            checkOrigin(ctx);
            String type = ctx.header("Content-Type");
            if (type != null && hasBody(ctx) && !mediaType(type).equals("application/json")) {
                throw new ApiException(415, "unsupported_media_type", "Send the body as JSON, with Content-Type: application/json");
            }
        }
    }

    private void checkOrigin(Context ctx) {
        if (foreignOrigin(ctx.header("Origin"), ctx.header("Host"))) {
            throw crossOrigin();
        }
    }

    private boolean foreignOrigin(String origin, String host) {
        return origin != null && !sameOrigin(origin, host) && !cors.allows(origin);
    }

    private static ApiException crossOrigin() {
        return new ApiException(403, "cross_origin", "Requests from another site are refused: the Origin is not this server's");
    }

    private static ApiException foreignHost() {
        return new ApiException(403, "forbidden_host", "This server answers only requests addressed to a loopback address"
                + " (127.0.0.1, [::1]), localhost, or a host named in " + AllowedHosts.VARIABLE);
    }

    /**
     * The same doors for a request that a servlet of its own answers, outside Javalin's routes (the MCP
     * endpoint): an allowed {@code Host} (see {@link #guard}), the token as {@code Authorization: Bearer} when
     * there is one (programs only, no page cookie), and, whatever the method, no {@code Origin} of another site.
     *
     * @return the refusal to answer with ({@code 401} without the token, {@code 403} for a foreign host or origin), or
     *         {@code null} when the request may pass
     */
    public ApiException refusal(HttpServletRequest request) {
        if (checksHost && !allowedHosts.allows(request.getHeader("Host"))) {
            return foreignHost();
        }
        if (tokenDigest != null && !hasBearerToken(request.getHeader("Authorization"))) {
            return new ApiException(401, "unauthorized", "This server needs its API token: send Authorization: Bearer TOKEN");
        }
        return foreignOrigin(request.getHeader("Origin"), request.getHeader("Host")) ? crossOrigin() : null;
    }

    /** The answer to every unauthenticated API request, and to every unknown id, name or path. */
    public static ApiException notFound() {
        return new ApiException(404, "not_found", NOT_FOUND_MESSAGE);
    }

    private static String queryToken(Context ctx) {
        try {
            return ctx.queryParam("token");
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** The {@code token} field of the sign-in form ({@code application/x-www-form-urlencoded}, at most 4 KiB). */
    private static String formToken(Context ctx) {
        String type = ctx.header("Content-Type");
        if (type == null || !mediaType(type).equals("application/x-www-form-urlencoded")) {
            return null;
        }
        try {
            byte[] body = ctx.req().getInputStream().readNBytes(MAX_SIGN_IN_BODY_BYTES + 1);
            if (body.length > MAX_SIGN_IN_BODY_BYTES) {
                return null;
            }
            for (String field : new String(body, StandardCharsets.US_ASCII).split("&")) {
                if (field.startsWith("token=")) {
                    return java.net.URLDecoder.decode(field.substring(6), StandardCharsets.UTF_8);
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            return null; // unreadable or malformed: not signed in
        }
        return null;
    }

    /**
     * {@code /?token=…} or the sign-in form: a right token sets the session cookie and redirects to the
     * page (without the token in its address); a wrong one falls through to the sign-in page.
     */
    private void signIn(Context ctx, String offered) {
        if (offered == null || !matches(offered)) {
            return;
        }
        StringBuilder cookie = new StringBuilder(SESSION_COOKIE).append('=').append(sessionValue)
                .append("; Path=/; HttpOnly; SameSite=Strict; Max-Age=").append(Duration.ofDays(30).toSeconds());
        if (ctx.req().isSecure() || "https".equalsIgnoreCase(ctx.header("X-Forwarded-Proto"))) {
            cookie.append("; Secure");
        }
        throw EarlyAnswer.signedIn(cookie.toString());
    }

    private boolean hasBearerToken(String header) {
        if (header == null || header.length() < 7 || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return false;
        }
        return matches(header.substring(7).strip());
    }

    private boolean hasSessionCookie(Context ctx) {
        String header = ctx.header("Cookie");
        if (header == null) {
            return false;
        }
        for (String part : header.split(";")) {
            String pair = part.strip();
            if (pair.startsWith(SESSION_COOKIE + "=")) {
                byte[] offered = pair.substring(SESSION_COOKIE.length() + 1).getBytes(StandardCharsets.UTF_8);
                if (MessageDigest.isEqual(sha256(offered), sha256(sessionValue.getBytes(StandardCharsets.US_ASCII)))) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Constant time in the offered token: both sides are hashed to 32 bytes first. */
    private boolean matches(String offered) {
        return MessageDigest.isEqual(sha256(offered), tokenDigest);
    }

    private static boolean hasBody(Context ctx) {
        String length = ctx.header("Content-Length");
        if (length != null) {
            return !length.strip().equals("0");
        }
        return ctx.header("Transfer-Encoding") != null;
    }

    private static String mediaType(String contentType) {
        int semicolon = contentType.indexOf(';');
        return (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).strip().toLowerCase(Locale.ROOT);
    }

    private static boolean sameOrigin(String origin, String host) {
        if (host == null) {
            return false;
        }
        String o = origin.toLowerCase(Locale.ROOT);
        String h = host.toLowerCase(Locale.ROOT);
        return o.equals("http://" + h) || o.equals("https://" + h);
    }

    private static String sessionValue(String token) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(token.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            byte[] value = mac.doFinal("skillforge page session v1".getBytes(StandardCharsets.US_ASCII));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(value);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }

    private static byte[] sha256(String text) {
        return sha256(text.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    /**
     * An answer finished before any route runs (the sign-in page, the redirect after signing in, a
     * CORS preflight), thrown from the guard and written by {@link #writer}.
     */
    static final class EarlyAnswer extends RuntimeException {
        private final Consumer<Context> writer;

        EarlyAnswer(Consumer<Context> writer) {
            super(null, null, false, false);
            this.writer = writer;
        }

        static EarlyAnswer signInPage() {
            return new EarlyAnswer(ctx -> {
                ctx.header("WWW-Authenticate", "Bearer realm=\"skillforge\"");
                // With no-referrer, a browser sends "Origin: null" even for this page's own form; same-origin
                // lets the sign-in post show where it comes from (and still tells other sites nothing).
                ctx.header("Referrer-Policy", "same-origin");
                ctx.header("Cache-Control", "no-store");
                ctx.status(401).contentType("text/html;charset=utf-8").result(SIGN_IN_PAGE);
            });
        }

        static EarlyAnswer signedIn(String cookie) {
            return new EarlyAnswer(ctx -> {
                ctx.header("Set-Cookie", cookie);
                ctx.header("Location", "/");
                ctx.header("Cache-Control", "no-store");
                ctx.status(303).contentType("text/plain;charset=utf-8").result("Signed in: go to /");
            });
        }
    }
}
