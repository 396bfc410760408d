package dev.skillforge.server.mcp;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@code arguments} of one tool call, read field by field: each wrong one is a {@link ToolError}
 * that names the argument and what it should be, so the calling model can correct itself.
 */
final class ToolArguments {

    private final String tool;
    private final Map<String, Object> values;

    ToolArguments(String tool, Map<String, Object> values) {
        this.tool = tool;
        this.values = values == null ? Map.of() : values;
    }

    /** Refuses any argument not in {@code names} (the tool's schema says {@code additionalProperties: false}). */
    ToolArguments allowOnly(List<String> names) {
        Set<String> unknown = new TreeSet<>(values.keySet());
        names.forEach(unknown::remove);
        if (!unknown.isEmpty()) {
            throw new ToolError(tool + " has no argument " + String.join(", ", unknown.stream().map(n -> "'" + n + "'").toList())
                    + (names.isEmpty() ? "; it takes none" : "; it takes " + String.join(", ", names)));
        }
        return this;
    }

    /** A string that must be there and must not be blank. */
    String required(String name) {
        String value = optional(name);
        if (value == null) {
            throw new ToolError(tool + " needs the argument '" + name + "' (a string)");
        }
        if (value.isBlank()) {
            throw new ToolError("'" + name + "' is empty: " + tool + " needs some text in it");
        }
        return value;
    }

    /** A string, or {@code null} when the argument is absent (or JSON null). */
    String optional(String name) {
        Object value = values.get(name);
        if (value == null) {
            return null;
        }
        if (!(value instanceof String text)) {
            throw new ToolError("'" + name + "' must be a string, not " + kind(value));
        }
        return text;
    }

    /** The argument as the client sent it (a string, number, list, map…), or {@code null}. */
    Object raw(String name) {
        return values.get(name);
    }

    private static String kind(Object value) {
        return switch (value) {
            case Number n -> "a number";
            case Boolean b -> "a boolean";
            case Map<?, ?> m -> "an object";
            case List<?> l -> "an array";
            default -> "a " + value.getClass().getSimpleName();
        };
    }
}
