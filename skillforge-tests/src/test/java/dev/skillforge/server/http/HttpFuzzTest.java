package dev.skillforge.server.http;

import dev.skillforge.testkit.SseClient;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.server.config.SecuritySettings;
import dev.skillforge.server.exec.CommandPolicy;
import dev.skillforge.server.exec.ProcessRunner;
import dev.skillforge.server.provider.sim.SimReply;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fuzzes the HTTP API of one real server with generated requests: random methods, paths
 * (traversal, encodings, unicode, very long), headers (credentials, content types, event ids,
 * origins, cookies, huge values) and bodies (valid requests mutated, random JSON, random bytes),
 * through the JDK client, and malformed requests no client library would send (bad or conflicting
 * {@code Content-Length}, broken chunking, garbage request lines, NULs, oversized URIs and headers,
 * pipelining) over raw sockets.
 *
 * <p>Seeded and reproducible: {@code -Dfuzz.seed=N} replays a run, {@code -Dfuzz.count=N} changes
 * its size; the requests are generated from the seed before any is sent, so the set is the same
 * whatever order the workers send them in. Asserts: no 5xx, every request answered (or the
 * connection closed) within {@link #ANSWER_TIMEOUT}, no error body leaking a stack trace, a path,
 * a key or the token, and the server healthy at the end, still serving a real turn.
 */
class HttpFuzzTest {

    static final long SEED = Long.getLong("fuzz.seed", 20_260_707L);
    static final int COUNT = Integer.getInteger("fuzz.count", 10_000);
    static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(15);
    static final String TOKEN = "fuzz-token-0123456789abcdef";
    static final String PROVIDER_KEY = "test-key";
    private static final Logger LOG = LoggerFactory.getLogger(HttpFuzzTest.class);
    private static final Pattern STATUS_LINE = Pattern.compile("HTTP/1\\.[01] (\\d{3})");

    @TempDir
    Path data;

    /** One generated request: sent by the JDK client, or as raw bytes over a socket. */
    sealed interface Fuzz permits Client, Raw {
        String describe();
    }

    record Client(String method, String path, Map<String, String> headers, byte[] body) implements Fuzz {
        public String describe() {
            return method + " " + abbreviate(path) + " " + headers.keySet() + " body " + (body == null ? "none" : body.length + " bytes");
        }
    }

    record Raw(byte[] bytes, String label) implements Fuzz {
        public String describe() {
            return "raw " + label + ": " + abbreviate(new String(bytes, 0, Math.min(bytes.length, 120), StandardCharsets.ISO_8859_1));
        }
    }

    @Test
    void tenThousandGeneratedRequestsGetNo5xxNoHangAndLeaveTheServerHealthy() throws Exception {
        SecuritySettings security = SecuritySettings.defaults().withApiToken(TOKEN).withCommands(
                CommandPolicy.resolve(List.of("ls", "echo"), Map.of()), ProcessRunner.Limits.DEFAULT);
        try (ServerHarness server = ServerHarness.builder(data, messages -> SimReply.of("Fuzzed. <shell>ls</shell>".substring(0,
                messages.size() % 3 == 0 ? 25 : 7))).security(security).start()) {
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                ids.add(AuthenticationTest.send("POST", server.url("/api/conversations"), "{}", AuthenticationTest.bearer(TOKEN))
                        .json().path("id").asText());
            }
            server.skills.save("fuzz-skill", "---\nname: fuzz-skill\ndescription: For the fuzzer.\n---\nBody.\n");

            Random random = new Random(SEED);
            Generator generator = new Generator(random, ids);
            List<Fuzz> requests = new ArrayList<>(COUNT);
            for (int i = 0; i < COUNT; i++) {
                requests.add(random.nextInt(100) < 75 ? generator.client() : generator.raw());
            }
            LOG.info("HttpFuzzTest: seed {}, {} requests", SEED, COUNT);

            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
            Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
            List<String> failures = Collections.synchronizedList(new ArrayList<>());
            AtomicInteger closedWithoutAnswer = new AtomicInteger();
            int port = server.server.port();
            long start = System.nanoTime();
            try (ExecutorService workers = Executors.newFixedThreadPool(4)) {
                List<Future<?>> done = new ArrayList<>();
                for (int i = 0; i < requests.size(); i++) {
                    int n = i;
                    Fuzz fuzz = requests.get(i);
                    done.add(workers.submit(() -> {
                        try {
                            List<Integer> codes = new ArrayList<>();
                            List<String> bodies = new ArrayList<>();
                            switch (fuzz) {
                                case Client c -> send(http, server, c, codes, bodies);
                                case Raw r -> raw(port, r, codes, bodies);
                            }
                            if (codes.isEmpty()) {
                                closedWithoutAnswer.incrementAndGet();
                            }
                            for (int code : codes) {
                                statuses.computeIfAbsent(code, k -> new AtomicInteger()).incrementAndGet();
                                if (code >= 500) {
                                    failures.add("#" + n + " answered " + code + ": " + fuzz.describe() + " -> " + abbreviate(String.join(" ", bodies)));
                                }
                            }
                            for (String body : bodies) {
                                String leak = leak(body, server);
                                if (leak != null) {
                                    failures.add("#" + n + " leaked " + leak + ": " + fuzz.describe() + " -> " + abbreviate(body));
                                }
                            }
                        } catch (HttpTimeoutException | SocketTimeoutException e) {
                            failures.add("#" + n + " hung (no answer within " + ANSWER_TIMEOUT + "): " + fuzz.describe());
                        } catch (IOException e) {
                            // the server closed the connection on a request it could not parse: an answer, not a hang
                            closedWithoutAnswer.incrementAndGet();
                        } catch (Exception e) {
                            failures.add("#" + n + " " + e + ": " + fuzz.describe());
                        }
                    }));
                }
                for (Future<?> f : done) {
                    f.get(2, TimeUnit.MINUTES);
                }
            }
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            LOG.info("HttpFuzzTest: {} requests in {} ms; statuses {}; {} closed without an answer", COUNT, took.toMillis(),
                    new java.util.TreeMap<>(statuses), closedWithoutAnswer.get());
            System.out.println("HttpFuzzTest seed=" + SEED + " requests=" + COUNT + " ms=" + took.toMillis() + " statuses="
                    + new java.util.TreeMap<>(statuses) + " closedWithoutAnswer=" + closedWithoutAnswer.get());

            assertThat(failures).as("seed " + SEED).isEmpty();
            assertThat(statuses.keySet()).as("the fuzz reached the routes").contains(200, 400, 404);

            // Healthy afterwards: health, the API, and a real turn.
            AuthenticationTest.Answer health = AuthenticationTest.send("GET", server.url("/healthz"), null, AuthenticationTest.bearer(TOKEN));
            assertThat(health.status()).isEqualTo(200);
            assertThat(health.json().path("status").asText()).isEqualTo("ok");
            assertThat(AuthenticationTest.send("POST", server.url("/api/agent"), SseClient.userMessage("still there?"),
                    AuthenticationTest.bearer(TOKEN)).body()).contains("\"type\":\"done\"");
        }
    }

    private static void send(HttpClient http, ServerHarness server, Client c, List<Integer> codes, List<String> bodies) throws Exception {
        URI uri;
        try {
            uri = URI.create(server.url(c.path()));
        } catch (IllegalArgumentException notAUri) {
            // A path no URI class accepts (a bare %, a space): the same request, written by hand.
            raw(server.server.port(), toRaw(c), codes, bodies);
            return;
        }
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(ANSWER_TIMEOUT)
                .method(c.method(), c.body() == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(c.body()));
        c.headers().forEach(request::header);
        HttpResponse<InputStream> response = http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
        codes.add(response.statusCode());
        try (InputStream body = response.body()) {
            byte[] bytes = body.readNBytes(256 * 1024);
            if (response.statusCode() >= 400) {
                bodies.add(new String(bytes, StandardCharsets.UTF_8));
            }
            body.transferTo(java.io.OutputStream.nullOutputStream());
        }
    }

    static Raw toRaw(Client c) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StringBuilder head = new StringBuilder(c.method()).append(' ').append(c.path()).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        c.headers().forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
        if (c.body() != null) {
            head.append("Content-Length: ").append(c.body().length).append("\r\n");
        }
        head.append("Connection: close\r\n\r\n");
        out.writeBytes(head.toString().getBytes(StandardCharsets.UTF_8));
        if (c.body() != null) {
            out.writeBytes(c.body());
        }
        return new Raw(out.toByteArray(), "by hand");
    }

    private static void raw(int port, Raw r, List<Integer> codes, List<String> bodies) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout((int) ANSWER_TIMEOUT.toMillis());
            socket.getOutputStream().write(r.bytes());
            socket.getOutputStream().flush();
            socket.shutdownOutput();
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[8192];
            int n;
            while ((n = in.read(buffer)) > 0 && answer.size() < 4 * 1024 * 1024) {
                answer.write(buffer, 0, n);
            }
            String text = answer.toString(StandardCharsets.ISO_8859_1);
            Matcher status = STATUS_LINE.matcher(text);
            while (status.find()) {
                int code = Integer.parseInt(status.group(1));
                codes.add(code);
            }
            if (!codes.isEmpty() && codes.stream().anyMatch(c -> c >= 400)) {
                int bodyAt = text.indexOf("\r\n\r\n");
                bodies.add(bodyAt < 0 ? text : text.substring(bodyAt + 4));
            }
        }
    }

    /** What an error body must never hold. */
    private static String leak(String body, ServerHarness server) {
        for (String secret : List.of(TOKEN, "Bearer " + PROVIDER_KEY, "Exception", "\tat ", "at dev.skillforge", "at org.eclipse",
                "java.lang", "jetty-", "Jetty(", server.server.workspaces().root().toString(), System.getProperty("java.io.tmpdir") + "/junit")) {
            if (body.contains(secret)) {
                return "'" + secret + "'";
            }
        }
        return null;
    }

    static String abbreviate(String text) {
        String oneLine = text.replace("\r", "\\r").replace("\n", "\\n");
        return oneLine.length() > 200 ? oneLine.substring(0, 200) + "…" : oneLine;
    }

    /** Builds requests from the seeded random source. */
    static final class Generator {
        private final Random random;
        private final List<String> ids;

        Generator(Random random, List<String> ids) {
            this.random = random;
            this.ids = ids;
        }

        <T> T pick(List<T> items) {
            return items.get(random.nextInt(items.size()));
        }

        boolean chance(int percent) {
            return random.nextInt(100) < percent;
        }

        Client client() {
            String method = pick(List.of("GET", "GET", "GET", "POST", "POST", "POST", "PUT", "PATCH", "PATCH", "DELETE", "HEAD",
                    "OPTIONS", "TRACE", "PROPFIND", "FUZZ"));
            Map<String, String> headers = new java.util.LinkedHashMap<>();
            int auth = random.nextInt(100);
            if (auth < 70) {
                headers.put("Authorization", "Bearer " + TOKEN);
            } else if (auth < 80) {
                headers.put("Authorization", pick(List.of("Bearer wrong", "Bearer ", "Basic " + TOKEN, "Bearer " + TOKEN + TOKEN,
                        "bearer " + TOKEN.toUpperCase(), TOKEN, "Bearer " + "x".repeat(5000), "Bearer  " + TOKEN + "  ")));
            } else if (auth < 85) {
                headers.put("Cookie", pick(List.of(HttpSecurity.SESSION_COOKIE + "=" + TOKEN, HttpSecurity.SESSION_COOKIE + "=",
                        "a=b; " + HttpSecurity.SESSION_COOKIE + "=\"x\"", ";;;=;", HttpSecurity.SESSION_COOKIE + "=" + "y".repeat(3000))));
            }
            if (chance(60)) {
                headers.put("Content-Type", pick(List.of("application/json", "application/json", "application/json; charset=utf-8",
                        "application/JSON", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=z",
                        "application/json; charset=utf-16", "*/*", "a/b/c", "json", ";")));
            }
            if (chance(20)) {
                headers.put("Accept", pick(List.of("text/event-stream", "application/json", "*/*", "text/html", "garbage")));
            }
            if (chance(10)) {
                headers.put("Last-Event-ID", pick(List.of("0", "1", "-5", "99999999999999999999", "abc", " 3 ", "1e3", "")));
            }
            if (chance(8)) {
                headers.put("Origin", pick(List.of("https://evil.example", "null", "http://127.0.0.1", "file://")));
            }
            if (chance(5)) {
                headers.put("X-Fuzz", randomAscii(random.nextInt(chance(10) ? 20_000 : 200)));
            }
            if (chance(5)) {
                headers.put("Range", pick(List.of("bytes=0-10", "bytes=-1", "bytes=999999-", "lines=1")));
            }
            if (chance(3)) {
                headers.put("If-None-Match", "\"" + randomAscii(10) + "\"");
            }
            byte[] body = method.equals("GET") || method.equals("HEAD") ? (chance(5) ? randomBytes(50) : null)
                    : (chance(85) ? body() : null);
            return new Client(method, path(), headers, body);
        }

        String path() {
            String id = chance(60) ? pick(ids) : pick(List.of(new java.util.UUID(random.nextLong(), random.nextLong()).toString(), "x", "..", "%2e%2e", "..%2F..%2Fetc",
                    "%00", "%C0%AF", "%E9", "%ZZ", "%", "a%2Fb", "\u00e9\u00e8", "%F0%9F%92%A9", "x".repeat(5000), "CON", "-1", " ",
                    "00000000-0000-0000-0000-000000000000", pick(ids).toUpperCase()));
            String skill = chance(50) ? "fuzz-skill" : pick(List.of("..", "%2e%2e%2fetc%2fpasswd", "a--b", "A", "x".repeat(70), "%00", "fuzz-skill%00"));
            String base = pick(List.of("/", "/healthz", "/api", "/api/", "/api/agent", "/api/conversations", "/api/conversations/",
                    "/api/conversations/" + id, "/api/conversations/" + id + "/messages", "/api/conversations/" + id + "/events",
                    "/api/conversations/" + id + "/stop", "/api/conversations/" + id + "/export", "/api/conversations/" + id + "/nope",
                    "/api/skills", "/api/providers", "/api/skills/" + skill, "/api/skills/" + skill + "/SKILL.md", "/app.js", "/index.html",
                    "/webjars/dompurify/3.3.3/dist/purify.es.mjs", "/webjars/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd",
                    "//api//conversations", "/API/CONVERSATIONS", "/api/conversations/" + id + "/messages/",
                    "/" + "a/".repeat(random.nextInt(200)), "/" + randomPathSegment()));
            if (chance(30)) {
                base += "?" + pick(List.of("limit=-1", "limit=0", "limit=101", "limit=abc", "offset=-1", "offset=99999999999",
                        "format=xml", "format=markdown", "format=json", "lastEventId=abc", "lastEventId=-1", "token=" + TOKEN,
                        "token=x", "a=%ZZ", "limit=1&limit=2", "=&=&", randomPathSegment()));
            }
            return base;
        }

        /** Characters a URI can carry, escaped where needed. */
        String randomPathSegment() {
            StringBuilder out = new StringBuilder();
            int length = random.nextInt(chance(5) ? 3000 : 30);
            for (int i = 0; i < length; i++) {
                int kind = random.nextInt(10);
                if (kind < 6) {
                    out.append((char) ('a' + random.nextInt(26)));
                } else if (kind < 8) {
                    out.append(pick(List.of("-", ".", "_", "~", "%20", "%2F", "%25", "%00", "%FF", "%C3%A9", "..", "!", "$", "'", "(", ")", "*", "+", ",", ";", "=", ":", "@")));
                } else {
                    out.append('%').append(String.format("%02X", random.nextInt(256)));
                }
            }
            return out.toString();
        }

        byte[] body() {
            int kind = random.nextInt(100);
            if (kind < 45) {
                return mutate(valid()).getBytes(StandardCharsets.UTF_8);
            }
            if (kind < 60) {
                return valid().getBytes(StandardCharsets.UTF_8);
            }
            if (kind < 80) {
                return randomJson(0).getBytes(StandardCharsets.UTF_8);
            }
            if (kind < 85) {
                return ("[".repeat(2000 + random.nextInt(20_000))).getBytes(StandardCharsets.UTF_8); // deep nesting
            }
            if (kind < 87) {
                return ("{\"messages\":[{\"role\":\"user\",\"content\":\"" + "x".repeat(RequestBodies.MAX_UPLOAD_BODY_BYTES) + "\"}]}")
                        .getBytes(StandardCharsets.UTF_8); // over the limit
            }
            if (kind < 90) {
                return new byte[0];
            }
            return randomBytes(random.nextInt(2000));
        }

        String valid() {
            String id = pick(ids);
            return pick(List.of(
                    "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
                    "{\"messages\":[{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"assistant\",\"content\":\"<shell>ls</shell>\"},"
                            + "{\"role\":\"tool\",\"content\":\"$ ls\\nx\"},{\"role\":\"user\",\"content\":\"b\"}]}",
                    "{\"content\":\"hello\"}", "{\"title\":\"renamed\"}", "{}",
                    "{\"conversationId\":\"" + id + "\",\"content\":\"more\"}",
                    "{\"conversationId\":\"" + id + "\",\"messages\":[{\"role\":\"user\",\"content\":\"more\"}]}"));
        }

        String mutate(String json) {
            StringBuilder text = new StringBuilder(json);
            int edits = 1 + random.nextInt(4);
            for (int i = 0; i < edits && !text.isEmpty(); i++) {
                int at = random.nextInt(text.length());
                switch (random.nextInt(8)) {
                    case 0 -> text.deleteCharAt(at);
                    case 1 -> text.insert(at, pick(List.of("{", "}", "[", "]", "\"", ":", ",", "\\", "\\u0000", "\\ud800", "null", "1e99999",
                            "-0", "true", "\u0000", "\uFEFF", "\u202E", "\"role\":\"system\",", "\"content\":null,", "\"messages\":{},")));
                    case 2 -> text.setCharAt(at, (char) random.nextInt(0x3000));
                    case 3 -> text.replace(0, text.length(), text.toString().replace("\"user\"", pick(List.of("\"tool\"", "\"\"", "\"USER\"", "1", "null", "[]"))));
                    case 4 -> text.replace(0, text.length(), text.toString().replace("\"hi\"", pick(List.of("\"\"", "\"  \"", "42", "{}",
                            "\"" + "y".repeat(random.nextInt(5000)) + "\"", "\"\\u0000\"", "\"\\ud83d\""))));
                    case 5 -> text.append(pick(List.of("", " ", "x", "}", "{}", "\n\n", "//")));
                    case 6 -> text.insert(0, pick(List.of("\uFEFF", " ", "[", "null", "\"")));
                    default -> text.replace(0, text.length(), text.toString().replace("}", ",\"extra\":" + randomJson(2) + "}"));
                }
            }
            return text.toString();
        }

        String randomJson(int depth) {
            int kind = depth > 4 ? random.nextInt(4) : random.nextInt(6);
            return switch (kind) {
                case 0 -> Long.toString(random.nextLong());
                case 1 -> pick(List.of("null", "true", "false", "1.5e308", "-0.0", "1e400", "0x10", "NaN"));
                case 2 -> "\"" + randomText(random.nextInt(40), true) + "\"";
                case 3 -> "\"" + pick(List.of("user", "assistant", "tool", "system", "messages", "content", "title")) + "\"";
                case 4 -> {
                    StringBuilder out = new StringBuilder("[");
                    int n = random.nextInt(5);
                    for (int i = 0; i < n; i++) {
                        out.append(i == 0 ? "" : ",").append(randomJson(depth + 1));
                    }
                    yield out.append(']').toString();
                }
                default -> {
                    StringBuilder out = new StringBuilder("{");
                    int n = random.nextInt(5);
                    for (int i = 0; i < n; i++) {
                        String key = pick(List.of("messages", "role", "content", "title", "conversationId", "x", ""));
                        out.append(i == 0 ? "" : ",").append('"').append(key).append("\":").append(randomJson(depth + 1));
                    }
                    yield out.append('}').toString();
                }
            };
        }

        String randomAscii(int length) {
            StringBuilder out = new StringBuilder();
            for (int i = 0; i < length; i++) {
                out.append((char) (0x21 + random.nextInt(0x5e)));
            }
            return out.toString();
        }

        String randomText(int length, boolean jsonEscaped) {
            StringBuilder out = new StringBuilder();
            for (int i = 0; i < length; i++) {
                int c = random.nextInt(10) < 7 ? 0x20 + random.nextInt(0x5f) : 0xa0 + random.nextInt(0x2000);
                if (jsonEscaped && (c == '"' || c == '\\')) {
                    out.append('\\');
                }
                out.append((char) c);
            }
            return out.toString();
        }

        byte[] randomBytes(int length) {
            byte[] bytes = new byte[length];
            random.nextBytes(bytes);
            return bytes;
        }

        Raw raw() {
            String id = pick(ids);
            String auth = chance(70) ? "Authorization: Bearer " + TOKEN + "\r\n" : "";
            String json = "{\"content\":\"hi\"}";
            List<Raw> templates = List.of(
                    raw("nul in path", "GET /api/conversations/%00 HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + "Connection: close\r\n\r\n"),
                    raw("raw nul in path", "GET /api/conversations/a\u0000b HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + "\r\n"),
                    raw("negative length", "POST /api/conversations HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + "Content-Type: application/json\r\nContent-Length: -1\r\n\r\n{}"),
                    raw("non-numeric length", "POST /api/agent HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + "Content-Length: abc\r\n\r\n{}"),
                    raw("huge length", "POST /api/agent HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + "Content-Type: application/json\r\nContent-Length: 99999999999999999999\r\n\r\n{}"),
                    raw("length over limit", "POST /api/agent HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + "Content-Type: application/json\r\nContent-Length: 5000000\r\n\r\n{\"messages\":"),
                    raw("two lengths", "POST /api/conversations HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + "Content-Length: 2\r\nContent-Length: 10\r\n\r\n{}"),
                    raw("list length", "POST /api/conversations HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + "Content-Length: 2, 2\r\n\r\n{}"),
                    raw("short body", "POST /api/conversations/" + id + "/messages HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth
                            + "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n" + json),
                    raw("long body", "POST /api/conversations HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + "Content-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}GARBAGE GARBAGE\r\n\r\n"),
                    raw("bad chunk", "POST /api/agent HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"),
                    raw("unfinished chunks", "POST /api/agent HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"mes\r\n"),
                    raw("huge chunk", "POST /api/agent HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + "Transfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFF\r\nx\r\n"),
                    raw("length and chunked", "POST /api/conversations HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"),
                    raw("unknown encoding", "POST /api/conversations HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + "Transfer-Encoding: gzip, zstd\r\n\r\n{}"),
                    raw("no uri", "GET\r\n\r\n"),
                    raw("bad version", "GET / HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n"),
                    raw("http 0.9", "GET /healthz\r\n\r\n"),
                    raw("extra words", "GET / HTTP/1.1 extra\r\nHost: 127.0.0.1\r\n\r\n"),
                    raw("lower-case method", "get /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"),
                    raw("garbage line", randomText(1 + random.nextInt(200), false) + "\r\n\r\n"),
                    raw("random bytes", randomBytes(1 + random.nextInt(2000))),
                    raw("http2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
                    raw("no colon", "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nNoColonHere\r\n\r\n"),
                    raw("space before colon", "GET /healthz HTTP/1.1\r\nHost : 127.0.0.1\r\n\r\n"),
                    raw("folded header", "GET /api/conversations HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + "X-A: a\r\n  b\r\nConnection: close\r\n\r\n"),
                    raw("bad header name", "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX(Y): z\r\n\r\n"),
                    raw("bare cr", "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\rX: y\r\n\r\n"),
                    raw("nul in header", "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX: a\u0000b\r\n\r\n"),
                    raw("huge uri", "GET /api/conversations/" + "x".repeat(70_000) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
                    raw("huge header", "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX: " + "y".repeat(40_000) + "\r\n\r\n"),
                    raw("many headers", "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + "X-Many: z\r\n".repeat(3000) + "\r\n"),
                    raw("no host 1.1", "GET /healthz HTTP/1.1\r\n\r\n"),
                    raw("no host 1.0", "GET /api/conversations HTTP/1.0\r\n" + auth + "\r\n"),
                    raw("two hosts", "GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"),
                    raw("invalid utf-8 path", concat("GET /api/skills/", new byte[]{(byte) 0xC0, (byte) 0xAF, (byte) 0xFF}, " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + "Connection: close\r\n\r\n")),
                    raw("absolute form", "GET http://evil.example/api/conversations HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + "Connection: close\r\n\r\n"),
                    raw("asterisk form", "OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"),
                    raw("connect", "CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n"),
                    raw("expect continue", "POST /api/conversations HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + "Content-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"),
                    raw("bad expect", "POST /api/conversations HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + "Expect: 999-weird\r\nContent-Length: 2\r\n\r\n{}"),
                    raw("pipelined", "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /api/conversations HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + "\r\n"
                            + "DELETE /api/skills/nothing HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + "Connection: close\r\n\r\n"),
                    raw("upgrade", "GET /api/conversations HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n" + auth + "\r\n"),
                    raw("h2c upgrade", "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n"),
                    raw("sse then close", "GET /api/conversations/" + id + "/events HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + "Accept: text/event-stream\r\nLast-Event-ID: -7\r\n\r\n"),
                    raw("bad json over raw", "POST /api/agent HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + "Content-Type: application/json\r\nContent-Length: 9\r\n\r\n{\"a\":\u00ff\u00fe}"),
                    raw("bad utf-8 body", concat("POST /api/conversations HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + "Content-Type: application/json\r\nContent-Length: 14\r\n\r\n{\"title\":\"",
                            new byte[]{(byte) 0xED, (byte) 0xA0, (byte) 0x80}, "\"}")));
            Raw chosen = pick(templates);
            if (chance(20)) {
                byte[] bytes = chosen.bytes().clone();
                for (int i = 0; i < 1 + random.nextInt(3) && bytes.length > 0; i++) {
                    bytes[random.nextInt(bytes.length)] = (byte) random.nextInt(256);
                }
                return new Raw(bytes, chosen.label() + " (mutated)");
            }
            return chosen;
        }

        static Raw raw(String label, String request) {
            return new Raw(request.getBytes(StandardCharsets.ISO_8859_1), label);
        }

        static Raw raw(String label, byte[] bytes) {
            return new Raw(bytes, label);
        }

        static byte[] concat(String head, byte[] middle, String tail) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.writeBytes(head.getBytes(StandardCharsets.ISO_8859_1));
            out.writeBytes(middle);
            out.writeBytes(tail.getBytes(StandardCharsets.ISO_8859_1));
            return out.toByteArray();
        }
    }
}
