package dev.skillforge.server.http;

import io.javalin.http.Context;
import io.javalin.http.Handler;

import java.util.Locale;

/**
 * A request body must be declared {@code application/json}: a browser form or a {@code text/plain}
 * post (which another site can send without a preflight) cannot be dressed as an API call. The one
 * form is the sign-in page's, which {@link Authentication#signIn} reads itself.
 */
final class ContentTypeCheck implements Handler {

    @Override
    public void handle(Context ctx) {
        if (OriginCheck.SAFE_METHODS.contains(ctx.method()) || ctx.path().equals(Authentication.SIGN_IN_PATH)) {
            return;
        }
        String type = ctx.header("Content-Type");
        if (type != null && hasBody(ctx) && !mediaType(type).equals("application/json")) {
            throw new ApiException(415, "unsupported_media_type", "Send the body as JSON, with Content-Type: application/json");
        }
    }

    private static boolean hasBody(Context ctx) {
        String length = ctx.header("Content-Length");
        if (length != null) {
            return !length.strip().equals("0");
        }
        return ctx.header("Transfer-Encoding") != null;
    }

    /** The media type of a {@code Content-Type} value, without parameters, in lower case. */
    static String mediaType(String contentType) {
        int semicolon = contentType.indexOf(';');
        return (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).strip().toLowerCase(Locale.ROOT);
    }
}
