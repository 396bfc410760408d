package dev.skillforge.testkit;

import com.fasterxml.jackson.databind.JsonNode;
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
import java.util.ArrayList;
import java.util.List;

/** A small SSE client for tests: posts JSON and reads the answer as events, over real HTTP. */
public final class SseClient {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    /** One received event: its {@code id:} and its parsed {@code data:}. */
    public record Event(long id, JsonNode data) {
        public String type() {
            return data.path("type").asText();
        }

        public String text(String field) {
            return data.path(field).asText();
        }
    }

    /** A plain (non-streamed) answer. */
    public record Answer(int status, String contentType, String body) {
        public JsonNode json() throws IOException {
            return Json.parse(body);
        }
    }

    private SseClient() {
    }

    public static HttpRequest post(String url, String json) {
        return HttpRequest.newBuilder(URI.create(url))
                .header("Content-Type", "application/json")
                .header("Accept", "text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build();
    }

    /** Posts and reads the whole event stream. */
    public static List<Event> postForEvents(String url, String json) throws IOException, InterruptedException {
        HttpResponse<InputStream> response = HTTP.send(post(url, json), HttpResponse.BodyHandlers.ofInputStream());
        if (response.statusCode() != 200) {
            throw new AssertionError("expected 200, got " + response.statusCode() + ": " + new String(response.body().readAllBytes(), StandardCharsets.UTF_8));
        }
        try (InputStream body = response.body()) {
            return readEvents(body, Integer.MAX_VALUE);
        }
    }

    public static Answer postForAnswer(String url, String json) throws IOException, InterruptedException {
        HttpResponse<String> response = HTTP.send(post(url, json), HttpResponse.BodyHandlers.ofString());
        return new Answer(response.statusCode(), response.headers().firstValue("content-type").orElse(""), response.body());
    }

    public static Answer get(String url) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(url)).GET().build());
    }

    public static Answer send(String method, String url, String json) throws IOException, InterruptedException {
        HttpRequest.BodyPublisher body = json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json);
        return send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json").method(method, body).build());
    }

    private static Answer send(HttpRequest request) throws IOException, InterruptedException {
        HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        return new Answer(response.statusCode(), response.headers().firstValue("content-type").orElse(""), response.body());
    }

    /** GETs an event stream, resuming after {@code lastEventId} (none if null), and reads it to its end. */
    public static List<Event> getEvents(String url, Long lastEventId) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).header("Accept", "text/event-stream").GET();
        if (lastEventId != null) {
            request.header("Last-Event-ID", String.valueOf(lastEventId));
        }
        HttpResponse<InputStream> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
        if (response.statusCode() != 200) {
            throw new AssertionError("expected 200, got " + response.statusCode());
        }
        try (InputStream body = response.body()) {
            return readEvents(body, Integer.MAX_VALUE);
        }
    }

    public static HttpResponse<InputStream> open(String url, String json) throws IOException, InterruptedException {
        return HTTP.send(post(url, json), HttpResponse.BodyHandlers.ofInputStream());
    }

    /**
     * Opens a raw socket, posts {@code json} and returns the socket positioned at the response body
     * (chunked SSE): closing it is exactly what a closing browser tab does to the connection.
     */
    public static java.net.Socket openRaw(int port, String path, String json) throws IOException {
        java.net.Socket socket = new java.net.Socket("127.0.0.1", port);
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        String head = "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Accept: text/event-stream\r\nContent-Length: " + body.length + "\r\n\r\n";
        socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().write(body);
        socket.getOutputStream().flush();
        return socket;
    }

    /** Reads up to {@code max} events (comments skipped), or until the body ends. */
    public static List<Event> readEvents(InputStream body, int max) throws IOException {
        EventReader reader = new EventReader(body);
        List<Event> events = new ArrayList<>();
        Event event;
        while (events.size() < max && (event = reader.next()) != null) {
            events.add(event);
        }
        return events;
    }

    /**
     * An event stream read one event at a time, for a client that acts while the stream goes on. One
     * reader per stream: what it buffered ahead is not lost between two calls.
     */
    public static final class EventReader implements AutoCloseable {
        private final BufferedReader reader;
        /** The last {@code id:} seen: an event without one keeps it, as in EventSource. */
        private long id = -1;

        public EventReader(InputStream body) {
            this.reader = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
        }

        /** The next event (comments skipped), or {@code null} when the body ended. */
        public Event next() throws IOException {
            StringBuilder data = null;
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.isEmpty()) {
                    if (data != null) {
                        return new Event(id, Json.parse(data.toString()));
                    }
                } else if (line.startsWith("id: ")) {
                    id = Long.parseLong(line.substring(4));
                } else if (line.startsWith("data: ")) {
                    data = data == null ? new StringBuilder(line.substring(6)) : data.append('\n').append(line.substring(6));
                }
            }
            return null;
        }

        @Override
        public void close() throws IOException {
            reader.close();
        }
    }

    public static String userMessage(String content) {
        var body = Json.object();
        body.putArray("messages").addObject().put("role", "user").put("content", content);
        return Json.write(body);
    }
}
