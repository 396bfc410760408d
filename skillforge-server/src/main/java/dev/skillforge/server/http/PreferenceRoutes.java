package dev.skillforge.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.people.Preferences;
import dev.skillforge.server.preferences.SavedPreferences;
import dev.skillforge.server.store.StoreException;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;

import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * {@code GET} and {@code PUT /api/me/settings}: what the asking person chose for themselves (their default provider, the
 * page's theme, their instructions for new conversations), on every server, with people or without.
 */
public final class PreferenceRoutes implements Door {

    private static final int MAX_BODY_BYTES = 64 * 1024;
    private static final Set<String> FIELDS = Set.of("defaultProvider", "theme", "instructions");

    private final SavedPreferences preferences;

    public PreferenceRoutes(SavedPreferences preferences) {
        this.preferences = preferences;
    }

    @Override
    public void register(JavalinConfig config) {
        config.routes.get("/api/me/settings", ctx -> ConversationRoutes.json(ctx, 200,
                json(stored(() -> preferences.of(Callers.of(ctx).personId()), "read"))));
        config.routes.put("/api/me/settings", this::save);
    }

    /** The whole of {@code {"defaultProvider": name | null, "theme": "auto" | "light" | "dark", "instructions": text}}. */
    private void save(Context ctx) {
        JsonNode body = RequestBodies.readJsonObject(ctx.req(), MAX_BODY_BYTES);
        body.fieldNames().forEachRemaining(field -> {
            if (!FIELDS.contains(field)) {
                throw ApiException.badRequest("invalid_request", "Unknown field '" + field + "': send defaultProvider, theme and instructions");
            }
        });
        Preferences chosen;
        try {
            chosen = new Preferences(Optional.ofNullable(text(body, "defaultProvider", true)), Preferences.Theme.fromWire(text(body, "theme", false)),
                    text(body, "instructions", false));
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest("invalid_request", e.getMessage());
        }
        String person = Callers.of(ctx).personId();
        Preferences saved;
        try {
            saved = stored(() -> preferences.save(person, chosen), "saved");
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest("invalid_request", e.getMessage());
        }
        ConversationRoutes.json(ctx, 200, json(saved));
    }

    private static String text(JsonNode body, String field, boolean nullable) {
        JsonNode value = body.get(field);
        if (value == null) {
            throw ApiException.badRequest("invalid_request", "'" + field + "' is missing: send defaultProvider, theme and instructions");
        }
        if (value.isNull() && nullable) {
            return null;
        }
        if (!value.isTextual()) {
            throw ApiException.badRequest("invalid_request", "'" + field + "' must be a string" + (nullable ? " or null" : ""));
        }
        return value.asText();
    }

    private static <T> T stored(Supplier<T> call, String what) {
        try {
            return call.get();
        } catch (StoreException e) {
            throw new ApiException(503, "storage_unavailable", "Your settings cannot be " + what + " right now (the database"
                    + " cannot be reached); try again shortly");
        }
    }

    private static ObjectNode json(Preferences preferences) {
        ObjectNode body = Json.object();
        if (preferences.defaultProvider().isPresent()) {
            body.put("defaultProvider", preferences.defaultProvider().get());
        } else {
            body.putNull("defaultProvider");
        }
        return body.put("theme", preferences.theme().wireName()).put("instructions", preferences.instructions());
    }
}
