package dev.skillforge.server;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the ahead-of-time cache's training run does to a started server ({@code skillforge train}): the requests of
 * a first visit, then turns in several conversations at once, over real HTTP on loopback, so that the classes they
 * need and the method profiles of the hot path (JEP 515) are in the cache. A failed request fails the training (the
 * launcher then runs without a cache).
 */
final class TrainingRun {

    /** 128 turns at 16 at once: ~10 s more than a first visit alone, and most of what the JIT would compile later. */
    private static final int WARM_UP_CONVERSATIONS = 16;
    private static final int WARM_UP_TURNS = 8;
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
            String conversation = newConversation(client, base);
            send(client, post(conversation + "/messages", "{\"content\":\"Learn how to make cold brew coffee\"}"));
            send(client, post(conversation + "/messages", "{\"content\":\"Now list the skills\"}"));
            send(client, HttpRequest.newBuilder(URI.create(conversation)).GET());
            answered += 5; // the stateless turn, the new conversation, its two turns, the conversation read back
            return answered + warmUp(client, base);
        }
    }

    /**
     * Turns in several conversations at once: with their profiles in the cache the JIT compiles the hot path from
     * the start of a real run instead of profiling it again (at 100 concurrent turns the compiler's CPU per turn
     * fell from 2.1 to 0.5–0.8 ms, docs/performance.md).
     */
    private static int warmUp(HttpClient client, String base) throws IOException, InterruptedException {
        List<Callable<Integer>> work = new ArrayList<>();
        for (int c = 0; c < WARM_UP_CONVERSATIONS; c++) {
            work.add(() -> {
                String conversation = newConversation(client, base);
                for (int t = 0; t < WARM_UP_TURNS; t++) {
                    send(client, post(conversation + "/messages",
                            "{\"content\":\"Learn how to make cold brew coffee, step " + t + "\"}"));
                }
                return 1 + WARM_UP_TURNS;
            });
        }
        int answered = 0;
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (Future<Integer> done : threads.invokeAll(work)) {
                try {
                    answered += done.get();
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
                }
            }
        }
        return answered;
    }

    /** A new conversation's URL. */
    private static String newConversation(HttpClient client, String base) throws IOException, InterruptedException {
        Matcher created = ID.matcher(send(client, post(base + "/api/conversations", "{}")));
        if (!created.find()) {
            throw new IOException("the training run got no conversation id");
        }
        return base + "/api/conversations/" + created.group(1);
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
