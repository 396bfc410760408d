package dev.skillforge.server.http;

import dev.skillforge.server.http.AllowedHosts;
import io.javalin.http.Context;
import io.javalin.http.Handler;

/**
 * The {@code Host} a request is addressed to must be a loopback address, {@code localhost} or a name of
 * {@code FORGE_ALLOWED_HOSTS} ({@link AllowedHosts}: parsed, never resolved), so a web page cannot reach
 * the server through DNS rebinding. Checked always on a server without a token, and on one with a token
 * when the operator named hosts.
 */
final class HostCheck implements Handler {

    private final AllowedHosts allowed;
    private final boolean enabled;

    HostCheck(AllowedHosts allowed, boolean hasToken) {
        this.allowed = allowed;
        this.enabled = !hasToken || !allowed.isLoopbackOnly();
    }

    @Override
    public void handle(Context ctx) {
        ApiException refusal = refusal(ctx.header("Host"));
        if (refusal != null) {
            throw refusal;
        }
    }

    /** The {@code 403} for {@code host}, or {@code null} when it may be answered. */
    ApiException refusal(String host) {
        if (!enabled || allowed.allows(host)) {
            return null;
        }
        return new ApiException(403, "forbidden_host", "This server answers only requests addressed to a loopback address"
                + " (127.0.0.1, [::1]), localhost, or a host named in " + AllowedHosts.VARIABLE);
    }
}
