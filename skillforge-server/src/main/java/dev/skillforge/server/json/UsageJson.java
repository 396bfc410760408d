package dev.skillforge.server.json;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.core.agent.Usage;

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
}
