package dev.skillforge.server;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the ahead-of-time cache's training run does to a started server ({@code skillforge train}): the requests of
 * a first visit, over real HTTP on loopback, so that the classes they need are in the cache. A failed request fails
 * the training (the launcher then runs without a cache).
 */
final class TrainingRun {

    private static final Pattern ID = Pattern.compile("\"id\"\\s*:\\s*\"([^\"]+)\"");

    private TrainingRun() {
    }

    /** @return how many requests were answered (all of them: a refusal throws) */
    static int exercise(int port) throws IOException, InterruptedException {
        String base = "http://127.0.0.1:" + port;
        int answered = 0;
        try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            for (String path : new String[]{"/", "/healthz", "/api/conversations", "/api/skills", "/openapi.json"}) {
                send(client, HttpRequest.newBuilder(URI.create(base + path)).GET());
                answered++;
            }
            String message = "{\"messages\":[{\"role\":\"user\",\"content\":\"Learn how to make cold brew coffee\"}]}";
            send(client, post(base + "/api/agent", message));
            Matcher created = ID.matcher(send(client, post(base + "/api/conversations", "{}")));
            if (!created.find()) {
                throw new IOException("the training run got no conversation id");
            }
            String conversation = base + "/api/conversations/" + created.group(1);
            send(client, post(conversation + "/messages", "{\"content\":\"Learn how to make cold brew coffee\"}"));
            send(client, post(conversation + "/messages", "{\"content\":\"Now list the skills\"}"));
            send(client, HttpRequest.newBuilder(URI.create(conversation)).GET());
            return answered + 5; // the stateless turn, the new conversation, its two turns, the conversation read back

        }
    }

    private static HttpRequest.Builder post(String url, String json) {
        return HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8));
    }

    private static String send(HttpClient client, HttpRequest.Builder request) throws IOException, InterruptedException {
        HttpRequest built = request.build();
        HttpResponse<String> response = client.send(built, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        if (response.statusCode() / 100 != 2) {
            throw new IOException(built.method() + " " + built.uri().getPath() + " answered " + response.statusCode() + ": " + response.body());
        }
        return response.body();
    }
}
