package dev.skillforge.server.http;

import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.http.HandlerType;

import java.net.URI;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * A state-changing request ({@code POST}, {@code PUT}, {@code PATCH}, {@code DELETE}) carrying an
 * {@code Origin} other than the server's own or a configured CORS origin is refused: another site's
 * page cannot make the browser act on this server.
 */
final class OriginCheck implements Handler {

    static final Set<HandlerType> SAFE_METHODS = Set.of(HandlerType.GET, HandlerType.HEAD, HandlerType.OPTIONS);

    private final CorsPolicy cors;
    /** A team server's public address ({@code FORGE_PUBLIC_URL}) as an origin: behind a proxy the Host may be another name. */
    private final Optional<String> publicOrigin;

    OriginCheck(CorsPolicy cors, Optional<URI> publicUrl) {
        this.cors = cors;
        this.publicOrigin = publicUrl.map(url -> (url.getScheme() + "://" + url.getRawAuthority()).toLowerCase(Locale.ROOT));
    }

    @Override
    public void handle(Context ctx) {
        if (!SAFE_METHODS.contains(ctx.method())) {
            check(ctx);
        }
    }

    /** Refuses a foreign {@code Origin} whatever the method (the sign-in form, the MCP endpoint). */
    void check(Context ctx) {
        ApiException refusal = refusal(ctx.header("Origin"), ctx.header("Host"));
        if (refusal != null) {
            throw refusal;
        }
    }

    /** The {@code 403} for a request from {@code origin} to {@code host}, or {@code null} when it may pass. */
    ApiException refusal(String origin, String host) {
        if (origin == null || sameOrigin(origin, host) || cors.allows(origin)
                || publicOrigin.filter(own -> own.equals(origin.toLowerCase(Locale.ROOT))).isPresent()) {
            return null;
        }
        return new ApiException(403, "cross_origin", "Requests from another site are refused: the Origin is not this server's");
    }

    private static boolean sameOrigin(String origin, String host) {
        if (host == null) {
            return false;
        }
        String o = origin.toLowerCase(Locale.ROOT);
        String h = host.toLowerCase(Locale.ROOT);
        return o.equals("http://" + h) || o.equals("https://" + h);
    }
}
