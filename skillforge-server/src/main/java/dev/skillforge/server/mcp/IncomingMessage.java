package dev.skillforge.server.mcp;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.server.json.UntrustedJson;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;

import java.io.IOException;

/**
 * A JSON-RPC message from an MCP client, checked on either transport before the SDK reads it: the SDK answers what it
 * cannot read with its exceptions' texts (class names, a quote of the whole message, a chain of causes) or, over
 * stdio, ends the session without a word. Here a message is read as a stream under {@link UntrustedJson}'s limits,
 * without keeping it, and whatever would fail the SDK is refused in words ({@link MessageRefusal}): not JSON, not one
 * JSON-RPC 2.0 object, an id that is not a string or an integer, a method that is not a string, params that are not an
 * object, a response with neither or both of {@code result} and {@code error}, an {@code initialize} the SDK cannot
 * read. An {@code initialize} is passed on with only what a session keeps of its client, bounded
 * ({@link ClientDescription}).
 *
 * @param id     the request's id (a {@link String} or a {@link Long}), or {@code null} for a notification or a response
 * @param method the method, or {@code null} for a response
 * @param body   the message to hand to the SDK
 */
record IncomingMessage(Object id, String method, byte[] body) {

    /** Ids and method names are echoed in answers and logs: longer ones are refused. */
    static final int MAX_NAME_CHARS = 200;

    /** Reads {@code body}; {@code json} is the SDK's mapper, which must be able to read what is passed on. */
    static IncomingMessage check(byte[] body, McpJsonMapper json) throws MessageRefusal {
        Fields fields = Fields.read(body);
        Object id = fields.validId();
        if (!"2.0".equals(fields.jsonrpc)) {
            throw invalid("'jsonrpc' must be \"2.0\"", id);
        }
        if (fields.idToken != null && id == null) {
            throw invalid("'id' must be a string of at most " + MAX_NAME_CHARS + " characters or an integer, not "
                    + describe(fields.idToken), null);
        }
        if (fields.methodToken != null) {
            return request(fields, id, body, json);
        }
        if (fields.resultToken == null && fields.errorToken == null) {
            throw invalid("a message has a 'method' (a request or a notification) or a 'result' or an 'error' (a response)", id);
        }
        if (id == null) {
            throw invalid("a response needs the 'id' of the request it answers", null);
        }
        if (fields.resultToken != null && fields.errorToken != null) {
            throw invalid("a response has a 'result' or an 'error', not both", id);
        }
        if (fields.errorToken != null && !(fields.error != null && fields.error.path("code").isIntegralNumber()
                && fields.error.path("code").canConvertToInt() && fields.error.path("message").isTextual())) {
            throw invalid("'error' must be an object with an integer 'code' and a string 'message'", id);
        }
        return new IncomingMessage(id, null, body);
    }

    private static IncomingMessage request(Fields fields, Object id, byte[] body, McpJsonMapper json) throws MessageRefusal {
        if (fields.methodToken != JsonToken.VALUE_STRING) {
            throw invalid("'method' must be a string, not " + describe(fields.methodToken), id);
        }
        if (fields.method.length() > MAX_NAME_CHARS) {
            throw invalid("'method' is longer than " + MAX_NAME_CHARS + " characters", id);
        }
        if (fields.paramsToken != null && fields.paramsToken != JsonToken.START_OBJECT) {
            throw new MessageRefusal(MessageRefusal.INVALID_PARAMS, "Invalid params: 'params' must be an object, not "
                    + describe(fields.paramsToken), id);
        }
        if (!fields.method.equals(McpSchema.METHOD_INITIALIZE) || id == null) {
            return new IncomingMessage(id, fields.method, body);
        }
        McpSchema.InitializeRequest initialize;
        try {
            initialize = json.convertValue(fields.initializeParams(body), McpSchema.InitializeRequest.class);
        } catch (RuntimeException e) {
            initialize = null;
        }
        if (initialize == null) {
            throw new MessageRefusal(MessageRefusal.INVALID_PARAMS, "Invalid params: initialize needs {\"protocolVersion\": \"…\","
                    + " \"capabilities\": {…}, \"clientInfo\": {\"name\": \"…\", \"version\": \"…\"}}", id);
        }
        try {
            return new IncomingMessage(id, fields.method,
                    json.writeValueAsBytes(new McpSchema.JSONRPCRequest("2.0", fields.method, id, ClientDescription.bounded(initialize))));
        } catch (IOException e) {
            throw new IllegalStateException("an initialize request could not be written again", e);
        }
    }

    private static MessageRefusal invalid(String what, Object id) {
        return new MessageRefusal(MessageRefusal.INVALID_REQUEST, "Invalid Request: " + what, id);
    }

    private static String describe(JsonToken token) {
        return switch (token) {
            case START_OBJECT -> "an object";
            case START_ARRAY -> "an array";
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
            case VALUE_TRUE, VALUE_FALSE -> "a boolean";
            default -> "null";
        };
    }

    /** The top-level fields of a message, read in one pass; values other than these are skipped, never kept. */
    private static final class Fields {

        String jsonrpc;
        JsonToken idToken;
        String idText;
        Long idNumber;
        JsonToken methodToken;
        String method;
        JsonToken paramsToken;
        JsonNode initializeParams;
        JsonToken resultToken;
        JsonToken errorToken;
        JsonNode error;

        static Fields read(byte[] body) throws MessageRefusal {
            try (JsonParser parser = UntrustedJson.parser(body)) {
                JsonToken first = parser.nextToken();
                if (first == null) {
                    throw new MessageRefusal(MessageRefusal.PARSE_ERROR, "Parse error: the message is empty", null);
                }
                if (first == JsonToken.START_ARRAY) {
                    throw invalid("a batch (a JSON array) of messages: MCP takes one message at a time", null);
                }
                if (first != JsonToken.START_OBJECT) {
                    throw invalid("a message is a JSON object, not " + describe(first), null);
                }
                Fields fields = new Fields();
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    fields.field(parser.currentName(), parser);
                }
                if (parser.nextToken() != null) {
                    throw new MessageRefusal(MessageRefusal.PARSE_ERROR, "Parse error: more follows the message (send one message)", null);
                }
                return fields;
            } catch (JsonProcessingException e) {
                var at = e.getLocation();
                String where = at == null ? "" : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")";
                throw new MessageRefusal(MessageRefusal.PARSE_ERROR, "Parse error: " + UntrustedJson.problem(e) + where, null);
            } catch (IOException e) {
                throw new IllegalStateException("a message in memory could not be read", e);
            }
        }

        private void field(String name, JsonParser parser) throws IOException {
            JsonToken value = parser.nextToken();
            switch (name) {
                case "jsonrpc" -> jsonrpc = value == JsonToken.VALUE_STRING ? parser.getText() : null;
                case "id" -> {
                    idToken = value;
                    idText = value == JsonToken.VALUE_STRING && parser.getTextLength() <= MAX_NAME_CHARS ? parser.getText() : null;
                    idNumber = value == JsonToken.VALUE_NUMBER_INT && parser.getNumberType() != JsonParser.NumberType.BIG_INTEGER
                            ? parser.getLongValue() : null;
                }
                case "method" -> {
                    methodToken = value;
                    method = value == JsonToken.VALUE_STRING ? parser.getText() : null;
                }
                case "params" -> {
                    paramsToken = value;
                    if (value == JsonToken.START_OBJECT && McpSchema.METHOD_INITIALIZE.equals(method)) {
                        initializeParams = parser.readValueAsTree();
                        return;
                    }
                }
                case "result" -> resultToken = value;
                case "error" -> {
                    errorToken = value;
                    if (value == JsonToken.START_OBJECT) {
                        error = parser.readValueAsTree();
                        return;
                    }
                }
                default -> {
                    // not the SDK's business either: skipped
                }
            }
            parser.skipChildren();
        }

        /** The params of an initialize request, read again when they came before its method. */
        JsonNode initializeParams(byte[] body) {
            if (initializeParams != null) {
                return initializeParams;
            }
            try (JsonParser parser = UntrustedJson.parser(body)) {
                parser.nextToken();
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    String name = parser.currentName();
                    parser.nextToken();
                    if (name.equals("params")) {
                        return parser.readValueAsTree();
                    }
                    parser.skipChildren();
                }
                return null;
            } catch (IOException e) {
                throw new IllegalStateException("a message read once could not be read again", e);
            }
        }

        Object validId() {
            return idText != null ? idText : idNumber;
        }
    }
}
