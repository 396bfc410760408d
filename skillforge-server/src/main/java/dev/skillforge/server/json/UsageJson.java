package dev.skillforge.server.json;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.core.agent.Usage;

import java.io.IOException;

/** Usage figures as JSON fields; an unknown figure is left out, never written as 0. */
public final class UsageJson {

    private UsageJson() {
    }

    public static ObjectNode put(ObjectNode json, Usage usage) {
        if (usage.inputTokens() != null) {
            json.put("inputTokens", usage.inputTokens());
        }
        if (usage.outputTokens() != null) {
            json.put("outputTokens", usage.outputTokens());
        }
        if (usage.cacheReadTokens() != null) {
            json.put("cacheReadTokens", usage.cacheReadTokens());
        }
        if (usage.cacheWriteTokens() != null) {
            json.put("cacheWriteTokens", usage.cacheWriteTokens());
        }
        return json;
    }

    /** The same fields, in the same order, written to a streaming generator. */
    public static void write(JsonGenerator json, Usage usage) throws IOException {
        field(json, "inputTokens", usage.inputTokens());
        field(json, "outputTokens", usage.outputTokens());
        field(json, "cacheReadTokens", usage.cacheReadTokens());
        field(json, "cacheWriteTokens", usage.cacheWriteTokens());
    }

    private static void field(JsonGenerator json, String name, Long value) throws IOException {
        if (value != null) {
            json.writeNumberField(name, value);
        }
    }
}
