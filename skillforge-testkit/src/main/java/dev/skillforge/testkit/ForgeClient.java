package dev.skillforge.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.testkit.SseClient;
import dev.skillforge.server.json.Json;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What a browser does with the conversation API of a {@link ServerProcess}, over real HTTP. */
public final class ForgeClient {

    private static final HttpClient HTTP = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();

    private ForgeClient() {
    }

    /** An event as it arrived, with the arrival time ({@link System#nanoTime()}). */
    public record Received(SseClient.Event event, long atNanos) {
        public String type() {
            return event.type();
        }

        public String text(String field) {
            return event.text(field);
        }
    }

    /** {@code POST /api/conversations}: the new conversation's id. */
    public static String create(HttpEndpoint server) throws IOException, InterruptedException {
        HttpResponse<String> created = HTTP.send(json(server.url("/api/conversations"), "POST", "{}").build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(created.statusCode()).as("create on %s: %s", server, created.body()).isEqualTo(201);
        return Json.parse(created.body()).path("id").asText();
    }

    /** {@code GET /api/conversations/{id}}, answered 200. */
    public static JsonNode conversation(HttpEndpoint server, String id) throws IOException, InterruptedException {
        HttpResponse<String> answer = HTTP.send(HttpRequest.newBuilder(URI.create(server.url("/api/conversations/" + id)))
                .timeout(Duration.ofSeconds(20)).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as("GET conversation %s on %s: %s", id, server, answer.body()).isEqualTo(200);
        return Json.parse(answer.body());
    }

    /** A plain GET (metrics, health), whatever its status. */
    public static HttpResponse<String> get(HttpEndpoint server, String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create(server.url(path))).timeout(Duration.ofSeconds(20)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** A plain POST, for answers that are not streams (stop, a refused turn). */
    public static HttpResponse<String> post(HttpEndpoint server, String path, String body) throws IOException, InterruptedException {
        return HTTP.send(json(server.url(path), "POST", body).build(), HttpResponse.BodyHandlers.ofString());
    }

    public static String message(String content) {
        return Json.write(Json.object().put("content", content));
    }

    /** Sends a message and follows the turn's events to the end; fails unless the server answers 200. */
    public static List<Received> turn(HttpEndpoint server, String id, String content) throws IOException, InterruptedException {
        try (EventStream stream = open(server, id, content)) {
            assertThat(stream.status()).as("POST message on %s: %s", server, stream.refusal()).isEqualTo(200);
            return stream.rest();
        }
    }

    /** Sends a message; the answer is read as it comes. */
    public static EventStream open(HttpEndpoint server, String id, String content) throws IOException, InterruptedException {
        HttpResponse<InputStream> response = HTTP.send(json(server.url("/api/conversations/" + id + "/messages"), "POST",
                message(content)).header("Accept", "text/event-stream").build(), HttpResponse.BodyHandlers.ofInputStream());
        return new EventStream(response);
    }

    /**
     * Re-attaches to a conversation's turn, {@code GET …/events} with {@code Last-Event-ID}: its events
     * after {@code lastEventId} (a 204 answer has none).
     */
    public static EventStream attach(HttpEndpoint server, String id, long lastEventId) throws IOException, InterruptedException {
        HttpResponse<InputStream> response = HTTP.send(HttpRequest.newBuilder(URI.create(server.url("/api/conversations/" + id + "/events")))
                .timeout(Duration.ofSeconds(30)).header("Accept", "text/event-stream")
                .header("Last-Event-ID", Long.toString(lastEventId)).GET().build(), HttpResponse.BodyHandlers.ofInputStream());
        return new EventStream(response);
    }

    private static HttpRequest.Builder json(String url, String method, String body) {
        return HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .method(method, HttpRequest.BodyPublishers.ofString(body));
    }

    public static List<Received> ofType(List<Received> events, String type) {
        return events.stream().filter(e -> e.type().equals(type)).toList();
    }

    /** One SSE answer, read event by event (or, when refused, its status and JSON error). */
    public static final class EventStream implements AutoCloseable {

        private final HttpResponse<InputStream> response;
        private final BufferedReader reader;
        private final List<Received> seen = new ArrayList<>();
        private String refusal;

        public EventStream(HttpResponse<InputStream> response) {
            this.response = response;
            this.reader = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8));
        }

        public int status() {
            return response.statusCode();
        }

        /** A header of the answer, or {@code ""}. */
        public String header(String name) {
            return response.headers().firstValue(name).orElse("");
        }

        /** The body of a non-200 answer. */
        public String refusal() throws IOException {
            if (refusal == null) {
                refusal = status() == 200 ? "" : new String(response.body().readAllBytes(), StandardCharsets.UTF_8);
            }
            return refusal;
        }

        /** The next event, or null when the stream ended (or broke: the server died). */
        public Received next() {
            long id = -1;
            StringBuilder data = null;
            try {
                String line;
                while ((line = reader.readLine()) != null) {
                    if (line.isEmpty()) {
                        if (data != null) {
                            Received event = new Received(new SseClient.Event(id, Json.parse(data.toString())), System.nanoTime());
                            seen.add(event);
                            return event;
                        }
                    } else if (line.startsWith("id: ")) {
                        id = Long.parseLong(line.substring(4));
                    } else if (line.startsWith("data: ")) {
                        data = data == null ? new StringBuilder(line.substring(6)) : data.append('\n').append(line.substring(6));
                    }
                }
            } catch (IOException e) {
                // The connection broke: the server was killed mid-turn.
            }
            return null;
        }

        /** Reads until an event of {@code type} arrives; fails if the stream ends first. */
        public Received until(String type) {
            Received event;
            while ((event = next()) != null) {
                if (event.type().equals(type)) {
                    return event;
                }
            }
            throw new AssertionError("the stream ended before a '" + type + "' event; seen: "
                    + seen.stream().map(Received::type).toList());
        }

        /** Reads to the end of the stream. */
        public List<Received> rest() {
            while (next() != null) {
                // keep reading
            }
            return List.copyOf(seen);
        }

        public List<Received> seen() {
            return List.copyOf(seen);
        }

        @Override
        public void close() throws IOException {
            reader.close();
        }
    }
}
