package dev.skillforge.bench.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.server.json.Json;

import java.io.IOException;

/**
 * One simulated user of the load benchmark: a conversation of turns, each on one keep-alive
 * connection, in one of three ways. {@link Mode#BY_ID} and {@link Mode#STATELESS} go through the
 * server ({@code POST /api/conversations/{id}/messages}; {@code POST /api/agent} with the history
 * rebuilt from the {@code raw-content} and {@code tool-output} events); {@link Mode#DIRECT} makes the
 * same two model calls straight at the upstream, which is the floor the server's figures are set against.
 * Only the events a user waits on are looked at; a JSON parser runs only on the history events.
 */
final class LoadConversation implements AutoCloseable {

    enum Mode { BY_ID, STATELESS, DIRECT }

    /** What one turn took: until its first text, and until its end, from the request's first byte. */
    record Turn(long firstTextNanos, long totalNanos) {
    }

    /** A system prompt of about the size the server sends (its skills' summary), for the direct calls. */
    private static final String SYSTEM_PROMPT = "You are SkillForge, an agent that learns skills. ".repeat(40);

    private final Mode mode;
    private final int port;
    private final String name;
    private final ArrayNode history = Json.MAPPER.createArrayNode();
    private Http1Connection connection;
    private String id;
    private int turns;

    LoadConversation(Mode mode, int port, String name) {
        this.mode = mode;
        this.port = port;
        this.name = name;
    }

    /** Runs the next turn; throws when it failed in any way (status, error event, broken stream). */
    Turn turn() throws IOException {
        String content = PacedUpstream.USER_MARK + ++turns + " of " + name;
        try {
            return switch (mode) {
                case BY_ID -> byId(content);
                case STATELESS -> stateless(content);
                case DIRECT -> direct(content);
            };
        } catch (IOException | RuntimeException e) {
            close(); // the next turn starts on a new connection
            throw e;
        }
    }

    /** Opens the connection now, before the step starts: a thousand users do not all connect in the same millisecond. */
    void connect() throws IOException {
        connection();
    }

    private Http1Connection connection() throws IOException {
        if (connection == null) {
            connection = new Http1Connection(port);
        }
        return connection;
    }

    private Turn byId(String content) throws IOException {
        if (id == null) {
            int status = connection().post("/api/conversations", "{}", false);
            String body = connection.nextLine();
            connection.drain();
            if (status != 201 || body == null) {
                throw new IOException("creating a conversation answered " + status);
            }
            id = Json.parse(body).path("id").asText();
        }
        ObjectNode message = Json.object().put("content", content);
        return events("/api/conversations/" + id + "/messages", Json.write(message), null);
    }

    private Turn stateless(String content) throws IOException {
        history.addObject().put("role", "user").put("content", content);
        ObjectNode body = Json.object();
        body.set("messages", history);
        ArrayNode added = Json.MAPPER.createArrayNode();
        Turn turn = events("/api/agent", Json.write(body), added);
        history.addAll(added);
        return turn;
    }

    /** Reads a turn's events; with {@code added}, collects the messages the turn adds to the history. */
    private Turn events(String path, String body, ArrayNode added) throws IOException {
        long start = System.nanoTime();
        int status = connection().post(path, body, true);
        if (status != 200) {
            throw new IOException(path + " answered " + status + ": " + connection.nextLine());
        }
        long firstText = -1;
        boolean done = false;
        String line;
        while ((line = connection.nextLine()) != null) {
            if (!line.startsWith("data: ")) {
                continue;
            }
            if (firstText < 0 && line.startsWith("data: {\"type\":\"text\"")) {
                firstText = System.nanoTime() - start;
            } else if (line.startsWith("data: {\"type\":\"done\"")) {
                done = true;
            } else if (line.startsWith("data: {\"type\":\"error\"")) {
                throw new IOException("error event: " + line);
            } else if (added != null && (line.startsWith("data: {\"type\":\"raw-content\"") || line.startsWith("data: {\"type\":\"tool-output\""))) {
                JsonNode event = Json.parse(line.substring(6));
                boolean raw = event.path("type").asText().equals("raw-content");
                added.addObject().put("role", raw ? "assistant" : "tool")
                        .put("content", event.path(raw ? "rawContent" : "toolOutput").asText());
            }
        }
        if (!done || firstText < 0) {
            throw new IOException("the turn's stream ended without " + (done ? "text" : "a done event"));
        }
        return new Turn(firstText, System.nanoTime() - start);
    }

    /** The turn's two model calls, straight at the upstream: the answer with the command, then the one after its output. */
    private Turn direct(String content) throws IOException {
        long start = System.nanoTime();
        history.addObject().put("role", "user").put("content", content);
        long firstText = call();
        history.addObject().put("role", "assistant").put("content", String.join("", PacedUpstream.COMMAND_ANSWER));
        history.addObject().put("role", "user").put("content", PacedUpstream.SHELL_OUTPUT + "\n$ skill list\nNo skills yet.");
        call();
        history.addObject().put("role", "assistant").put("content", String.join("", PacedUpstream.TEXT_ANSWER));
        return new Turn(firstText - start, System.nanoTime() - start);
    }

    /** One streamed call to the upstream; returns when its first text arrived. */
    private long call() throws IOException {
        ObjectNode body = Json.object().put("model", "paced-1");
        ArrayNode messages = body.putArray("messages");
        messages.addObject().put("role", "system").put("content", SYSTEM_PROMPT);
        messages.addAll(history);
        body.put("stream", true).putObject("stream_options").put("include_usage", true);
        int status = connection().post("/v1/chat/completions", Json.write(body), true);
        if (status != 200) {
            throw new IOException("the upstream answered " + status);
        }
        long firstText = -1;
        boolean done = false;
        String line;
        while ((line = connection.nextLine()) != null) {
            if (firstText < 0 && line.contains("\"delta\":{\"content\":\"") ) {
                firstText = System.nanoTime();
            } else if (line.equals("data: [DONE]")) {
                done = true;
            }
        }
        if (!done || firstText < 0) {
            throw new IOException("the upstream's stream ended without " + (done ? "text" : "[DONE]"));
        }
        return firstText;
    }

    @Override
    public void close() {
        if (connection != null) {
            try {
                connection.close();
            } catch (IOException ignored) {
                // closing a socket we are done with
            }
            connection = null;
        }
    }
}
