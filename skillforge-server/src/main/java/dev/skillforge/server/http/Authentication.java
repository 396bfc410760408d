package dev.skillforge.server.http;

import dev.skillforge.server.people.Caller;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.http.HandlerType;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Base64;

/**
 * The token and signing in, on a server with {@code FORGE_API_TOKEN}. A request is authenticated by
 * {@code Authorization: Bearer TOKEN} (compared in constant time) or by the page's session cookie
 * {@value #SESSION_COOKIE} ({@code HttpOnly}, {@code SameSite=Strict}, a keyed hash of the token rather
 * than the token), set by signing in once: the sign-in form ({@code POST /signin}, {@link #signIn}) or
 * opening {@code /?token=TOKEN}; both redirect to {@code /}, without the token in the address. A request
 * without it gets:
 * <ul>
 *   <li>under {@code /api}: {@code 404 not_found} with exactly the body of an unknown id, so a wrong token
 *       and a wrong id cannot be told apart;</li>
 *   <li>for the page and its files: {@code 401} with the sign-in form (no script);</li>
 *   <li>{@code GET /healthz}: an answer that says only {@code {"status":"ok"}}, for load balancers.</li>
 * </ul>
 */
final class Authentication implements Handler {

    static final String SESSION_COOKIE = "forge_session";
    static final String ATTRIBUTE = "skillforge.authenticated";
    static final String SIGN_IN_PATH = "/signin";

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
    private final byte[] sessionDigest;
    private final String sessionValue;
    private final OriginCheck origins;

    Authentication(String token, OriginCheck origins) {
        this.tokenDigest = sha256(token.getBytes(StandardCharsets.UTF_8));
        this.sessionValue = sessionValue(token);
        this.sessionDigest = sha256(sessionValue.getBytes(StandardCharsets.US_ASCII));
        this.origins = origins;
    }

    @Override
    public void handle(Context ctx) {
        boolean authenticated = hasBearerToken(ctx.header("Authorization")) || hasSessionCookie(ctx.header("Cookie"));
        ctx.attribute(ATTRIBUTE, authenticated);
        if (authenticated) {
            Callers.set(ctx, Caller.LOCAL); // one token, one person
        }
        String path = ctx.path();
        if (authenticated || path.equals("/healthz") || path.equals("/readyz") || (ctx.method() == HandlerType.POST && path.equals(SIGN_IN_PATH))) {
            return; // the probes say only "ok" or "ready" without the token; the sign-in form is its own route
        }
        if (path.equals("/api") || path.startsWith("/api/")) {
            throw HttpSecurity.notFound();
        }
        if (ctx.method() == HandlerType.GET && (path.equals("/") || path.equals("/index.html")) && matches(queryToken(ctx))) {
            signedIn(ctx);
        } else {
            signInPage(ctx);
        }
        ctx.skipRemainingHandlers();
    }

    /** {@code POST /signin}: the form's token sets the session cookie and goes to the page; a wrong one shows the form again. */
    void signIn(Context ctx) {
        origins.check(ctx);
        if (matches(formToken(ctx))) {
            signedIn(ctx);
        } else {
            signInPage(ctx);
        }
    }

    boolean hasBearerToken(String header) {
        if (header == null || header.length() < 7 || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return false;
        }
        return matches(header.substring(7).strip());
    }

    private boolean hasSessionCookie(String header) {
        if (header == null) {
            return false;
        }
        for (String part : header.split(";")) {
            String pair = part.strip();
            if (pair.startsWith(SESSION_COOKIE + "=")
                    && MessageDigest.isEqual(sha256(pair.substring(SESSION_COOKIE.length() + 1).getBytes(StandardCharsets.UTF_8)), sessionDigest)) {
                return true;
            }
        }
        return false;
    }

    /** Constant time in the offered token: both sides are hashed to 32 bytes first. */
    private boolean matches(String offered) {
        return offered != null && MessageDigest.isEqual(sha256(offered.getBytes(StandardCharsets.UTF_8)), tokenDigest);
    }

    private void signedIn(Context ctx) {
        StringBuilder cookie = new StringBuilder(SESSION_COOKIE).append('=').append(sessionValue)
                .append("; Path=/; HttpOnly; SameSite=Strict; Max-Age=").append(Duration.ofDays(30).toSeconds());
        if (ctx.req().isSecure() || "https".equalsIgnoreCase(ctx.header("X-Forwarded-Proto"))) {
            cookie.append("; Secure");
        }
        ctx.header("Set-Cookie", cookie.toString());
        ctx.header("Location", "/");
        ctx.header("Cache-Control", "no-store");
        ctx.status(303).contentType("text/plain;charset=utf-8").result("Signed in: go to /");
    }

    private static void signInPage(Context ctx) {
        ctx.header("WWW-Authenticate", "Bearer realm=\"skillforge\"");
        // With no-referrer, a browser sends "Origin: null" even for this page's own form; same-origin
        // lets the sign-in post show where it comes from (and still tells other sites nothing).
        ctx.header("Referrer-Policy", "same-origin");
        ctx.header("Cache-Control", "no-store");
        ctx.status(401).contentType("text/html;charset=utf-8").result(SIGN_IN_PAGE);
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
        if (type == null || !ContentTypeCheck.mediaType(type).equals("application/x-www-form-urlencoded")) {
            return null;
        }
        try {
            byte[] body = ctx.req().getInputStream().readNBytes(MAX_SIGN_IN_BODY_BYTES + 1);
            if (body.length > MAX_SIGN_IN_BODY_BYTES) {
                return null;
            }
            for (String field : new String(body, StandardCharsets.US_ASCII).split("&")) {
                if (field.startsWith("token=")) {
                    return URLDecoder.decode(field.substring(6), StandardCharsets.UTF_8);
                }
            }
        } catch (IOException | RuntimeException e) {
            return null; // unreadable or malformed: not signed in
        }
        return null;
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

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
