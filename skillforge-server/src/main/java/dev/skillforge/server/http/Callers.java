package dev.skillforge.server.http;

import dev.skillforge.server.people.Caller;
import io.javalin.http.Context;

/**
 * The caller of a request, as authentication resolved it before any route ran. Every request that reaches a
 * route has one; one that does not is a bug in the order of the checks, refused rather than served as someone.
 */
public final class Callers {

    private static final String ATTRIBUTE = "skillforge.caller";

    private Callers() {
    }

    static void set(Context ctx, Caller caller) {
        ctx.attribute(ATTRIBUTE, caller);
    }

    /** @throws IllegalStateException when no check resolved the request's caller */
    public static Caller of(Context ctx) {
        Caller caller = ctx.attribute(ATTRIBUTE);
        if (caller == null) {
            throw new IllegalStateException("a request reached " + ctx.path() + " with no caller resolved");
        }
        return caller;
    }
}
