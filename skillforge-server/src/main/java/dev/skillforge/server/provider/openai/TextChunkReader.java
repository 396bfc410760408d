package dev.skillforge.server.provider.openai;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.skillforge.server.json.Json;

import java.io.IOException;

/**
 * The common chunk of a chat-completions stream read without a tree: one choice whose delta carries at
 * most {@code content} (and fields this server ignores, such as {@code role}), and a {@code finish_reason}.
 * Anything else, or anything unusual about it (another field that means something to
 * {@link OpenAiStreamParser}: {@code error}, {@code usage}, {@code timings}, {@code web_search}, reasoning;
 * several choices; a value of an unexpected type; a repeated field; malformed JSON), is not read here:
 * {@link #read} answers {@code null} and the parser reads the chunk as a tree, as it reads every chunk
 * that is not this simple one. So what the parser makes of a chunk does not depend on this class.
 */
final class TextChunkReader {

    /** The text and the finish reason of a simple chunk; each {@code null} when absent or JSON null. */
    record TextChunk(String content, String finishReason) {
    }

    /** Compared by identity: a value that makes the chunk one for the tree parser. */
    @SuppressWarnings("StringOperationCanBeSimplified")
    private static final String NOT_SIMPLE = new String("not simple");

    private TextChunkReader() {
    }

    /** The chunk, or {@code null} when it is not the simple kind (then read it as a tree). */
    static TextChunk read(String data) {
        try (JsonParser json = Json.MAPPER.getFactory().createParser(data)) {
            if (json.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            TextChunk chunk = null;
            String field;
            while ((field = json.nextFieldName()) != null) {
                switch (field) {
                    case "choices" -> {
                        if (chunk != null || json.nextToken() != JsonToken.START_ARRAY) {
                            return null;
                        }
                        chunk = choice(json);
                        if (chunk == null || json.nextToken() != JsonToken.END_ARRAY) {
                            return null; // not one choice, or not the simple kind
                        }
                    }
                    case "error", "usage", "timings", "web_search" -> {
                        return null;
                    }
                    default -> {
                        json.nextToken();
                        json.skipChildren();
                    }
                }
            }
            return json.nextToken() == null ? chunk : null; // nothing may follow the object
        } catch (IOException | RuntimeException e) {
            return null; // the tree parser reports malformed JSON in its own words
        }
    }

    /** The choice the parser is at: an object with a delta that holds at most text. */
    private static TextChunk choice(JsonParser json) throws IOException {
        if (json.nextToken() != JsonToken.START_OBJECT) {
            return null;
        }
        boolean sawDelta = false;
        boolean sawFinish = false;
        String content = null;
        String finishReason = null;
        String field;
        while ((field = json.nextFieldName()) != null) {
            switch (field) {
                case "delta" -> {
                    if (sawDelta || json.nextToken() != JsonToken.START_OBJECT) {
                        return null;
                    }
                    sawDelta = true;
                    boolean sawContent = false;
                    String deltaField;
                    while ((deltaField = json.nextFieldName()) != null) {
                        switch (deltaField) {
                            case "content" -> {
                                content = sawContent ? NOT_SIMPLE : textOrNull(json);
                                if (content == NOT_SIMPLE) {
                                    return null;
                                }
                                sawContent = true;
                            }
                            case "reasoning_content", "reasoning" -> {
                                return null;
                            }
                            default -> {
                                json.nextToken();
                                json.skipChildren();
                            }
                        }
                    }
                }
                case "finish_reason" -> {
                    finishReason = sawFinish ? NOT_SIMPLE : textOrNull(json);
                    if (finishReason == NOT_SIMPLE) {
                        return null;
                    }
                    sawFinish = true;
                }
                case "usage" -> {
                    return null;
                }
                default -> {
                    json.nextToken();
                    json.skipChildren();
                }
            }
        }
        return new TextChunk(content, finishReason);
    }

    /** The next value: a string's text, {@code null} for JSON null, {@link #NOT_SIMPLE} for anything else. */
    private static String textOrNull(JsonParser json) throws IOException {
        JsonToken value = json.nextToken();
        if (value == JsonToken.VALUE_STRING) {
            return json.getText();
        }
        return value == JsonToken.VALUE_NULL ? null : NOT_SIMPLE;
    }
}
