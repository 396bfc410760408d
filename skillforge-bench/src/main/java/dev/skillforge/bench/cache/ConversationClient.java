package dev.skillforge.bench.cache;

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

/** The server's conversation API as a client uses it: create a conversation, then send one message at a time and read its events to the end. */
final class ConversationClient {

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final String base;

    ConversationClient(int port) {
        this.base = "http://127.0.0.1:" + port + "/api/conversations";
    }

    /** {@code POST /api/conversations} fixed to {@code provider}: the new conversation's id. */
    String create(String provider) throws IOException, InterruptedException {
        HttpResponse<String> created = http.send(post(base, Json.write(Json.object().put("provider", provider))).build(),
                HttpResponse.BodyHandlers.ofString());
        if (created.statusCode() != 201) {
            throw new IOException("creating a conversation answered HTTP " + created.statusCode() + ": " + created.body());
        }
        return Json.parse(created.body()).path("id").asText();
    }

    /** {@code POST /api/conversations/{id}/messages}: the turn's events, in order, to its last ({@code done} or {@code error}). */
    List<JsonNode> turn(String id, String message) throws IOException, InterruptedException {
        HttpRequest request = post(base + "/" + id + "/messages", Json.write(Json.object().put("content", message)))
                .header("Accept", "text/event-stream").build();
        HttpResponse<InputStream> response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        List<JsonNode> events = new ArrayList<>();
        try (BufferedReader body = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = body.readLine()) != null) {
                if (line.startsWith("data:")) {
                    events.add(Json.parse(line.substring("data:".length()).strip()));
                }
            }
        }
        if (response.statusCode() != 200 || events.isEmpty()) {
            throw new IOException("the turn answered HTTP " + response.statusCode() + " with " + events.size() + " events");
        }
        return events;
    }

    private static HttpRequest.Builder post(String url, String json) {
        return HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
    }
}
