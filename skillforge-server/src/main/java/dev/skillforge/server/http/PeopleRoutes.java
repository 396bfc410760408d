package dev.skillforge.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.server.access.Dollars;
import dev.skillforge.server.access.Spending;
import dev.skillforge.server.access.Team;
import dev.skillforge.server.access.TeamSettings;
import dev.skillforge.server.error.ConfigurationException;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.people.Caller;
import dev.skillforge.server.people.Person;
import dev.skillforge.server.store.PeopleStore;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;

import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The person asking, and on a team server everything about people: signing in and out at the issuer
 * ({@code /auth/…}), {@code /api/me} and its usage, personal access tokens, the admins' view of people, and the
 * protected resource metadata (RFC 9728) that tells an MCP client where to sign in. On a server without people
 * only {@code /api/me} and {@code /api/me/usage} exist, for its one person.
 */
public final class PeopleRoutes implements Door {

    private static final int MAX_SMALL_BODY_BYTES = 16 * 1024;
    static final String METADATA_PATH = "/.well-known/oauth-protected-resource";

    private final Optional<Team> team;
    private final Spending spending;

    public PeopleRoutes(Optional<Team> team, Spending spending) {
        this.team = team;
        this.spending = spending;
    }

    @Override
    public void register(JavalinConfig config) {
        config.routes.get("/api/me", this::me);
        config.routes.get("/api/me/usage", this::usage);
        if (team.isEmpty()) {
            return;
        }
        Team people = team.get();
        config.routes.get("/auth/login", ctx -> signIn(ctx, people));
        config.routes.get("/auth/callback", ctx -> callback(ctx, people));
        config.routes.post("/auth/logout", ctx -> signOut(ctx, people));
        config.routes.post("/api/tokens", ctx -> createToken(ctx, people));
        config.routes.get("/api/tokens", ctx -> listTokens(ctx, people));
        config.routes.delete("/api/tokens/{id}", ctx -> {
            if (!people.revokeToken(Callers.of(ctx), ctx.pathParam("id"))) {
                throw HttpSecurity.notFound();
            }
            ctx.status(204);
        });
        config.routes.get("/api/admin/users", ctx -> listPeople(ctx, people));
        config.routes.patch("/api/admin/users/{id}", ctx -> changePerson(ctx, people));
        config.routes.get(METADATA_PATH, ctx -> metadata(ctx, people.settings()));
        config.routes.get(METADATA_PATH + "/mcp", ctx -> metadata(ctx, people.settings()));
    }

    // ------------------------------------------------------------------------------------ me

    private void me(Context ctx) {
        Caller caller = Callers.of(ctx);
        ObjectNode body = Json.object().put("id", caller.personId());
        Optional<Person> person = team.flatMap(people -> people.person(caller.personId()));
        body.put("name", person.map(Person::name).orElse(null)).put("email", person.map(Person::email).orElse(null))
                .put("admin", caller.admin())
                .put("team", team.isPresent());
        ConversationRoutes.json(ctx, 200, body);
    }

    private void usage(Context ctx) {
        Spending.Month month = spending.month(Callers.of(ctx).personId());
        ObjectNode body = Json.object().put("spentUsd", Dollars.amount(month.spentMicros()));
        putDollars(body, "budgetUsd", month.budgetMicros());
        putDollars(body, "leftUsd", month.leftMicros());
        body.put("renewsAt", month.renewsAt().toString());
        ConversationRoutes.json(ctx, 200, body);
    }

    private static void putDollars(ObjectNode body, String field, OptionalLong micros) {
        if (micros.isPresent()) {
            body.put(field, Dollars.amount(micros.getAsLong()));
        } else {
            body.putNull(field);
        }
    }

    // ------------------------------------------------------------------------------- signing in

    private static void signIn(Context ctx, Team people) {
        try {
            ctx.header("Cache-Control", "no-store");
            ctx.redirect(people.signInRedirect().toString(), HttpStatus.FOUND);
        } catch (Team.SignInUnavailable e) {
            problem(ctx, 503, e.getMessage());
        }
    }

    private static void callback(Context ctx, Team people) {
        Team.SignedIn signedIn;
        try {
            signedIn = people.finishSignIn(ctx.queryString());
        } catch (Team.SignInUnavailable e) {
            problem(ctx, 400, e.getMessage());
            return;
        }
        long maxAge = Math.max(0, (signedIn.expiresAtMillis() - System.currentTimeMillis()) / 1000);
        // Lax, not Strict: the browser arrives here from the issuer's site, and must send the cookie on the way on to "/".
        ctx.header("Set-Cookie", TeamAuthentication.SESSION_COOKIE + "=" + signedIn.sessionSecret() + "; Path=/; HttpOnly; SameSite=Lax;"
                + " Max-Age=" + maxAge + (people.settings().secure() ? "; Secure" : ""));
        ctx.header("Cache-Control", "no-store");
        ctx.redirect("/", HttpStatus.FOUND);
    }

    private static void signOut(Context ctx, Team people) {
        TeamAuthentication.sessionSecret(ctx.header("Cookie")).ifPresent(people::signOut);
        ctx.header("Set-Cookie", TeamAuthentication.SESSION_COOKIE + "=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0"
                + (people.settings().secure() ? "; Secure" : ""));
        ctx.status(204);
    }

    /** A plain page saying what went wrong, with a way to try again (no script: the CSP allows none inline). */
    private static void problem(Context ctx, int status, String message) {
        String escaped = message.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
        ctx.header("Cache-Control", "no-store");
        ctx.status(status).contentType("text/html;charset=utf-8").result("""
                <!doctype html>
                <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
                <title>SkillForge: sign in</title></head>
                <body><h1>Signing in did not work</h1><p id="problem">%s</p><p><a href="/auth/login">Try again</a></p></body></html>
                """.formatted(escaped));
    }

    // ------------------------------------------------------------------------------------ tokens

    private static void createToken(Context ctx, Team people) {
        JsonNode body = RequestBodies.readJsonObject(ctx.req(), MAX_SMALL_BODY_BYTES);
        JsonNode name = body.get("name");
        if (name == null || !name.isTextual()) {
            throw ApiException.badRequest("invalid_request", "'name' is missing: send {\"name\":\"what the token is for\"}");
        }
        Team.NewToken made;
        try {
            made = people.createToken(Callers.of(ctx), name.asText());
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest("invalid_request", e.getMessage());
        }
        ctx.header("Cache-Control", "no-store");
        ConversationRoutes.json(ctx, 201, token(made.token()).put("token", made.secret()));
    }

    private static void listTokens(Context ctx, Team people) {
        ObjectNode body = Json.object();
        ArrayNode tokens = body.putArray("tokens");
        people.tokens(Callers.of(ctx)).forEach(token -> tokens.add(token(token)));
        ConversationRoutes.json(ctx, 200, body);
    }

    private static ObjectNode token(PeopleStore.Token token) {
        ObjectNode json = Json.object().put("id", token.id()).put("name", token.name())
                .put("createdAt", Instant.ofEpochMilli(token.createdAtMillis()).toString());
        if (token.lastUsedAtMillis().isPresent()) {
            json.put("lastUsedAt", Instant.ofEpochMilli(token.lastUsedAtMillis().getAsLong()).toString());
        } else {
            json.putNull("lastUsedAt");
        }
        return json;
    }

    // ------------------------------------------------------------------------------------ admins

    private static void requireAdmin(Context ctx) {
        if (!Callers.of(ctx).admin()) {
            throw new ApiException(403, "forbidden", "Only an admin of this server (FORGE_ADMINS) may see and change people");
        }
    }

    private static void listPeople(Context ctx, Team people) {
        requireAdmin(ctx);
        ObjectNode body = Json.object();
        ArrayNode users = body.putArray("users");
        people.people().forEach(summary -> users.add(user(people, summary.person()).put("conversations", summary.conversations())
                .put("tokens", summary.tokens()).put("spentUsd", Dollars.amount(summary.spentMicrosThisMonth()))));
        ConversationRoutes.json(ctx, 200, body);
    }

    private static ObjectNode user(Team people, Person person) {
        ObjectNode json = Json.object().put("id", person.id()).put("name", person.name()).put("email", person.email())
                .put("subject", person.subject()).put("admin", people.isAdmin(person)).put("disabled", person.disabled())
                .put("firstSignIn", Instant.ofEpochMilli(person.firstSignInMillis()).toString())
                .put("lastSignIn", Instant.ofEpochMilli(person.lastSignInMillis()).toString());
        putDollars(json, "monthlyBudgetUsd", person.monthlyBudgetMicros());
        return json;
    }

    /** {@code {"disabled": bool, "monthlyBudgetUsd": n | null}}: either or both; {@code null} removes their own budget. */
    private static void changePerson(Context ctx, Team people) {
        requireAdmin(ctx);
        JsonNode body = RequestBodies.readJsonObject(ctx.req(), MAX_SMALL_BODY_BYTES);
        Optional<Boolean> disabled = Optional.empty();
        if (body.has("disabled")) {
            if (!body.get("disabled").isBoolean()) {
                throw ApiException.badRequest("invalid_request", "'disabled' must be true or false");
            }
            disabled = Optional.of(body.get("disabled").asBoolean());
            if (disabled.get() && ctx.pathParam("id").equals(Callers.of(ctx).personId())) {
                throw ApiException.badRequest("invalid_request", "An admin cannot disable themselves");
            }
        }
        Optional<OptionalLong> budget = Optional.empty();
        if (body.has("monthlyBudgetUsd")) {
            JsonNode value = body.get("monthlyBudgetUsd");
            if (value.isNull()) {
                budget = Optional.of(OptionalLong.empty());
            } else if (value.isNumber()) {
                try {
                    budget = Optional.of(TeamSettings.dollars(value.decimalValue().stripTrailingZeros().toPlainString()));
                } catch (ConfigurationException e) {
                    throw ApiException.badRequest("invalid_request", "'monthlyBudgetUsd' must be an amount of dollars from 0 to 1000000"
                            + " with at most 6 decimals, or null for the server's default");
                }
            } else {
                throw ApiException.badRequest("invalid_request", "'monthlyBudgetUsd' must be a number of dollars, or null");
            }
        }
        if (disabled.isEmpty() && budget.isEmpty()) {
            throw ApiException.badRequest("invalid_request", "Send 'disabled' or 'monthlyBudgetUsd' (or both)");
        }
        Person changed = people.update(ctx.pathParam("id"), disabled, budget).orElseThrow(HttpSecurity::notFound);
        ConversationRoutes.json(ctx, 200, user(people, changed));
    }

    // ---------------------------------------------------------------------------- MCP clients

    /** RFC 9728: the MCP endpoint is a resource of this server, whose people sign in at the team's issuer. */
    private static void metadata(Context ctx, TeamSettings settings) {
        ObjectNode body = Json.object().put("resource", settings.mcpResource());
        body.putArray("authorization_servers").add(settings.issuer().toString());
        body.putArray("bearer_methods_supported").add("header");
        body.putArray("scopes_supported").add("openid").add("profile").add("email");
        body.put("resource_name", "SkillForge");
        ConversationRoutes.json(ctx, 200, body);
    }
}
