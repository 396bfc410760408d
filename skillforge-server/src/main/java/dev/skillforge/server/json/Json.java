package dev.skillforge.server.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The one JSON mapper of the server. Trees are built explicitly ({@link ObjectNode} keeps insertion
 * order), so the same data always serialises to the same bytes: provider prompt caches depend on it.
 */
public final class Json {

    public static final ObjectMapper MAPPER = new ObjectMapper(JsonFactory.builder()
            // Deeply nested hostile input is refused early rather than exhausting the stack.
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(200).build())
            // Parsers' and generators' buffers go back to one shared pool when they close. Jackson's default keeps
            // them per thread, and every virtual thread (a run, a follower) is a new thread: each kept its own
            // 30-odd KB of char arrays for as long as it lived, most of the heap an active run held.
            .recyclerPool(JsonRecyclerPools.sharedBoundedPool())
            .build());

    private Json() {
    }

    public static ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    public static String write(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static byte[] bytes(JsonNode node) {
        return write(node).getBytes(StandardCharsets.UTF_8);
    }

    /** Parses JSON text; throws {@link JsonProcessingException} with a location on malformed input. */
    public static JsonNode parse(String text) throws JsonProcessingException {
        return MAPPER.readTree(text);
    }

    /** A text field, or {@code null} when absent or not a string. */
    public static String text(JsonNode node, String field) {
        JsonNode value = node == null ? null : node.get(field);
        return value != null && value.isTextual() ? value.asText() : null;
    }

    /** A whole-number field, or {@code null} when absent or not a number. */
    public static Long number(JsonNode node, String field) {
        JsonNode value = node == null ? null : node.get(field);
        return value != null && value.isIntegralNumber() ? value.asLong() : null;
    }

    /** What a JSON value is, for error messages: "a string", "an array", "null"… */
    public static String kind(JsonNode node) {
        return switch (node.getNodeType()) {
            case ARRAY -> "an array";
            case OBJECT -> "an object";
            case STRING -> "a string";
            case NUMBER -> "a number";
            case BOOLEAN -> "a boolean";
            case NULL -> "null";
            default -> node.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
        };
    }
}
