package dev.skillforge.server.http;

import io.javalin.http.Context;
import io.javalin.http.Handler;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * A request body must be declared {@code application/json}: a browser form or a {@code text/plain}
 * post (which another site can send without a preflight) cannot be dressed as an API call. The one
 * form is the sign-in page's, which {@link Authentication#signIn} reads itself; a new message with files may come
 * as {@code multipart/form-data} (another site's form is still refused by {@link OriginCheck} and the token). A
 * skill's zip comes as {@code application/zip} and one of its files as {@code application/octet-stream}: types no
 * form can send without the browser asking the server first.
 */
final class ContentTypeCheck implements Handler {

    /** The one API path that also takes {@code multipart/form-data}: a new message with files (the page's picker). */
    private static final Pattern MESSAGES = Pattern.compile("/api/conversations/[^/]+/messages");
    /** The paths that take a skill's zip, and one of its files' bytes. */
    private static final Pattern SKILL_ZIP = Pattern.compile("/api/skills/import");
    private static final Pattern SKILL_FILE = Pattern.compile("/api/skills/[^/]+/files/.+");

    @Override
    public void handle(Context ctx) {
        if (OriginCheck.SAFE_METHODS.contains(ctx.method()) || ctx.path().equals(Authentication.SIGN_IN_PATH)) {
            return;
        }
        String type = ctx.header("Content-Type");
        if (type == null || !hasBody(ctx)) {
            return;
        }
        String media = mediaType(type);
        if (SKILL_ZIP.matcher(ctx.path()).matches()) {
            if (!media.equals("application/zip")) {
                throw new ApiException(415, "unsupported_media_type", "Send the zip itself, with Content-Type: application/zip");
            }
        } else if (SKILL_FILE.matcher(ctx.path()).matches()) {
            if (!media.equals("application/octet-stream")) {
                throw new ApiException(415, "unsupported_media_type", "Send the file's bytes, with Content-Type: application/octet-stream");
            }
        } else if (!media.equals("application/json") && !(media.equals("multipart/form-data") && MESSAGES.matcher(ctx.path()).matches())) {
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
