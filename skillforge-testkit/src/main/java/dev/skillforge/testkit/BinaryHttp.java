package dev.skillforge.testkit;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

/** Requests whose bodies are bytes (zips, files): what a script sends to the skills API, and what it gets back. */
public final class BinaryHttp {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    /** An answer: its status, {@code Content-Type}, {@code Content-Disposition} and body. */
    public record Answer(int status, String contentType, String disposition, byte[] body) {
        public String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private BinaryHttp() {
    }

    public static Answer get(String url) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(url)).GET().build());
    }

    /** {@code method} with {@code body} as {@code contentType}; no body (and no type) when {@code body} is null. */
    public static Answer send(String method, String url, String contentType, byte[] body) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url));
        if (body == null) {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            request.header("Content-Type", contentType).method(method, HttpRequest.BodyPublishers.ofByteArray(body));
        }
        return send(request.build());
    }

    private static Answer send(HttpRequest request) throws IOException, InterruptedException {
        HttpResponse<byte[]> response = HTTP.send(request, HttpResponse.BodyHandlers.ofByteArray());
        return new Answer(response.statusCode(), response.headers().firstValue("Content-Type").orElse(""),
                response.headers().firstValue("Content-Disposition").orElse(""), response.body());
    }
}
