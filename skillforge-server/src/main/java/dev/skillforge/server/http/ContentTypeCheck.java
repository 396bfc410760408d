package dev.skillforge.server.http;

import io.javalin.http.Context;
import io.javalin.http.Handler;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * A request body must be declared {@code application/json}: a browser form or a {@code text/plain}
 * post (which another site can send without a preflight) cannot be dressed as an API call. The one
 * form is the sign-in page's, which {@link Authentication#signIn} reads itself; a new message with files may come
 * as {@code multipart/form-data} (another site's form is still refused by {@link OriginCheck} and the token).
 */
final class ContentTypeCheck implements Handler {

    /** The one API path that also takes {@code multipart/form-data}: a new message with files (the page's picker). */
    private static final Pattern MESSAGES = Pattern.compile("/api/conversations/[^/]+/messages");

    @Override
    public void handle(Context ctx) {
        if (OriginCheck.SAFE_METHODS.contains(ctx.method()) || ctx.path().equals(Authentication.SIGN_IN_PATH)) {
            return;
        }
        String type = ctx.header("Content-Type");
        if (type != null && hasBody(ctx) && !mediaType(type).equals("application/json")
                && !(mediaType(type).equals("multipart/form-data") && MESSAGES.matcher(ctx.path()).matches())) {
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
