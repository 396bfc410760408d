package dev.skillforge.server.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;

import java.io.IOException;
import java.io.Reader;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * JSON that comes from outside the server (request bodies, MCP messages), read within limits so that what it costs
 * follows from what the documentation allows rather than from its shape. A tree costs up to 30 times the bytes it is
 * read from (an empty object is about 90 bytes of heap for 3 bytes of JSON: 17.7 MB of {@code [{},{},…]} held 546 MB),
 * so a document may hold at most {@value #MAX_TOKENS} tokens (every value, key and bracket counts one), which keeps its
 * tree near 50 MB at worst, what the largest honest body (files in base64) costs while it is read. Arrays and objects
 * nest at most {@value #MAX_DEPTH} deep, and nothing may follow the value.
 */
public final class UntrustedJson {

    /** The most tokens one document may hold: 10,000 messages with their keys take 60,000. */
    public static final long MAX_TOKENS = 500_000;
    public static final int MAX_DEPTH = 200;

    private static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).maxTokenCount(MAX_TOKENS).build())
            .recyclerPool(JsonRecyclerPools.sharedBoundedPool())
            .build();
    private static final ObjectMapper MAPPER = new ObjectMapper(FACTORY);
    private static final ObjectReader TREES = MAPPER.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private UntrustedJson() {
    }

    /**
     * The JSON value in {@code in}, read as it arrives (no copy of the whole text is made); a missing node when
     * {@code in} holds only white space.
     *
     * @throws JsonProcessingException malformed, over a limit ({@link #overLimit}), or followed by more
     * @throws IOException             what reading {@code in} throws
     */
    public static JsonNode readTree(Reader in) throws IOException {
        return TREES.readTree(in);
    }

    /**
     * A streaming parser of {@code bytes} under the same limits, for callers that look at a document without keeping
     * all of it (it reads a part as a tree with {@link JsonParser#readValueAsTree()}).
     */
    public static JsonParser parser(byte[] bytes) throws IOException {
        return MAPPER.createParser(bytes);
    }

    /** Whether {@code e} says the document was too big to read (too many tokens, a string too long), not malformed. */
    public static boolean overLimit(JsonProcessingException e) {
        String message = String.valueOf(e.getOriginalMessage());
        return e instanceof StreamConstraintsException && (message.startsWith("Token count") || message.startsWith("String value length")
                || message.startsWith("Document length"));
    }

    private static final Pattern UNEXPECTED = Pattern.compile("^Unexpected character \\('(.{1,2})' \\(code \\d+\\)\\)");
    private static final Pattern UNRECOGNIZED = Pattern.compile("^Unrecognized token '([^']{0,40})");

    /**
     * What is wrong, in words a person sending JSON knows, never the parser's internals (its class names, character
     * codes, expectations or a quote of the input).
     */
    public static String problem(JsonProcessingException e) {
        String message = String.valueOf(e.getOriginalMessage());
        if (e instanceof StreamConstraintsException) {
            return limit(message);
        }
        if (e instanceof JsonEOFException || message.startsWith("Unexpected end-of-input")) {
            return "it ends too early (a string, array or object is not closed)";
        }
        if (message.startsWith("Trailing token")) {
            return "more follows the JSON value (send one value)";
        }
        Matcher unexpected = UNEXPECTED.matcher(message);
        if (unexpected.find()) {
            return "unexpected character '" + unexpected.group(1) + "'";
        }
        Matcher unrecognized = UNRECOGNIZED.matcher(message);
        if (unrecognized.find()) {
            return "unknown word '" + unrecognized.group(1) + "' (text must be in double quotes)";
        }
        return "this is not valid JSON";
    }

    private static String limit(String message) {
        StreamReadConstraints limits = FACTORY.streamReadConstraints();
        if (message.startsWith("Token count")) {
            return "it holds more than " + String.format("%,d", MAX_TOKENS) + " values, keys and brackets, the most one document may";
        }
        if (message.startsWith("Document nesting depth")) {
            return "arrays and objects nest more than " + MAX_DEPTH + " deep";
        }
        if (message.startsWith("Number value length")) {
            return "a number has more than " + String.format("%,d", limits.getMaxNumberLength()) + " digits";
        }
        if (message.startsWith("Name length")) {
            return "a key is longer than " + String.format("%,d", limits.getMaxNameLength()) + " characters";
        }
        if (message.startsWith("String value length")) {
            return "a string is longer than " + String.format("%,d", limits.getMaxStringLength()) + " characters";
        }
        return "it is over a limit of the JSON reader";
    }
}
