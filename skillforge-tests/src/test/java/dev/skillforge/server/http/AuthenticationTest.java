package dev.skillforge.server.http;

import dev.skillforge.testkit.SseClient;
import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.server.http.AllowedHosts;
import dev.skillforge.testkit.HostileDns;
import dev.skillforge.server.config.SecuritySettings;
import dev.skillforge.server.json.Json;
import dev.skillforge.testkit.ServerProcess;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.testkit.SimScript;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The authentication rules over real HTTP: the token on every API call and on the page, a wrong
 * token indistinguishable from a wrong id, the page's sign-in cookie, other sites refused, the
 * loopback-only demo mode, and the refusal to start on an open address without a token.
 */
class AuthenticationTest {

    static final String TOKEN = "test-token-" + "0123456789abcdef";
    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path data;

    ServerHarness withToken(SimScript script) throws IOException {
        return ServerHarness.builder(data, script).security(SecuritySettings.defaults().withApiToken(TOKEN)).start();
    }

    record Answer(int status, HttpHeaders headers, String body) {
        JsonNode json() throws IOException {
            return Json.parse(body);
        }

        /** The headers that could tell two answers apart (the date aside). */
        Map<String, List<String>> comparableHeaders() {
            Map<String, List<String>> headers = new TreeMap<>(this.headers.map());
            headers.remove("date");
            return headers;
        }
    }

    static Answer send(String method, String url, String body, String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        return new Answer(response.statusCode(), response.headers(), response.body());
    }

    static String[] bearer(String token) {
        return new String[]{"Authorization", "Bearer " + token};
    }

    static String createConversation(ServerHarness server) throws Exception {
        Answer created = send("POST", server.url("/api/conversations"), "{\"title\":\"mine\"}", bearer(TOKEN));
        assertThat(created.status()).isEqualTo(201);
        return created.json().path("id").asText();
    }

    @Test
    void everyApiCallNeedsTheTokenAndChangesNothingWithoutIt() throws Exception {
        try (ServerHarness server = withToken(new SimScript(SimReply.of("Hello."), SimReply.of("Hello again.")))) {
            String id = createConversation(server);
            server.skills.save("kept", "---\nname: kept\ndescription: A skill.\n---\nBody.\n");
            String conversation = "/api/conversations/" + id;
            List<String[]> requests = List.of(
                    new String[]{"GET", "/api/conversations", null},
                    new String[]{"POST", "/api/conversations", "{}"},
                    new String[]{"GET", conversation, null},
                    new String[]{"PATCH", conversation, "{\"title\":\"stolen\"}"},
                    new String[]{"DELETE", conversation, null},
                    new String[]{"POST", conversation + "/messages", "{\"content\":\"hi\"}"},
                    new String[]{"GET", conversation + "/events", null},
                    new String[]{"POST", conversation + "/stop", "{}"},
                    new String[]{"GET", conversation + "/export?format=markdown", null},
                    new String[]{"POST", "/api/agent", SseClient.userMessage("hi")},
                    new String[]{"GET", "/api/skills", null},
                    new String[]{"GET", "/api/skills/kept", null},
                    new String[]{"GET", "/api/skills/kept/SKILL.md", null},
                    new String[]{"DELETE", "/api/skills/kept", null},
                    new String[]{"GET", "/api/providers", null},
                    new String[]{"GET", "/api/no-such-endpoint", null});
            Answer reference = send("GET", server.url("/api/conversations/" + UUID.randomUUID()), null, bearer(TOKEN));
            assertThat(reference.status()).isEqualTo(404);
            for (String[] r : requests) {
                for (String[] credentials : List.of(new String[0], bearer("wrong-token-0123456789"), bearer(TOKEN + "x"),
                        bearer(TOKEN.substring(1)), new String[]{"Authorization", "Basic " + TOKEN}, new String[]{"Authorization", TOKEN},
                        new String[]{"Cookie", HttpSecurity.SESSION_COOKIE + "=" + TOKEN})) {
                    Answer answer = send(r[0], server.url(r[1]), r[2], credentials);
                    assertThat(answer.status()).as(r[0] + " " + r[1] + " " + String.join(" ", credentials)).isEqualTo(404);
                    assertThat(answer.body()).as(r[0] + " " + r[1]).isEqualTo(reference.body());
                }
            }
            // Nothing changed: the conversation and the skill are still there, untouched, and no turn ran.
            Answer still = send("GET", server.url(conversation), null, bearer(TOKEN));
            assertThat(still.status()).isEqualTo(200);
            assertThat(still.json().path("title").asText()).isEqualTo("mine");
            assertThat(still.json().path("entries")).isEmpty();
            assertThat(server.skills.get("kept")).isPresent();
            assertThat(send("GET", server.url("/api/conversations"), null, bearer(TOKEN)).json().path("total").asInt()).isEqualTo(1);

            // With the token, the same requests work (bearer in any case).
            assertThat(send("GET", server.url("/api/conversations"), null, "Authorization", "bearer " + TOKEN).status()).isEqualTo(200);
            assertThat(send("PATCH", server.url(conversation), "{\"title\":\"renamed\"}", bearer(TOKEN)).status()).isEqualTo(200);
            assertThat(send("POST", server.url(conversation + "/messages"), "{\"content\":\"hi\"}", bearer(TOKEN)).body())
                    .contains("\"type\":\"done\"");
            assertThat(send("GET", server.url("/api/skills/kept"), null, bearer(TOKEN)).status()).isEqualTo(200);
            // A token in the query string is not a credential for the API.
            assertThat(send("GET", server.url("/api/conversations?token=" + TOKEN), null).status()).isEqualTo(404);
        }
    }

    @Test
    void aWrongTokenAndAWrongIdLookTheSameFromOutside() throws Exception {
        try (ServerHarness server = withToken(new SimScript())) {
            String id = createConversation(server);
            String unknown = UUID.randomUUID().toString();
            List<Answer> answers = List.of(
                    send("GET", server.url("/api/conversations/" + id), null, bearer("wrong-token-0123456789")),
                    send("GET", server.url("/api/conversations/" + id), null),
                    send("GET", server.url("/api/conversations/" + unknown), null, bearer(TOKEN)),
                    send("GET", server.url("/api/conversations/" + unknown), null, bearer("wrong-token-0123456789")),
                    send("GET", server.url("/api/conversations/not-even-an-id"), null, bearer(TOKEN)));
            for (Answer answer : answers) {
                assertThat(answer.status()).isEqualTo(404);
                assertThat(answer.body()).isEqualTo(answers.getFirst().body());
                assertThat(answer.comparableHeaders()).isEqualTo(answers.getFirst().comparableHeaders());
            }
            assertThat(answers.getFirst().json().path("error").path("code").asText()).isEqualTo("not_found");
            assertThat(answers.getFirst().headers().firstValue("WWW-Authenticate")).isEmpty();

            // Timing: interleaved, the medians of both kinds of failure are within a few milliseconds.
            List<Long> wrongToken = new ArrayList<>();
            List<Long> wrongId = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                wrongToken.add(time(() -> send("GET", server.url("/api/conversations/" + id), null, bearer("wrong-token-0123456789"))));
                wrongId.add(time(() -> send("GET", server.url("/api/conversations/" + UUID.randomUUID()), null, bearer(TOKEN))));
            }
            long difference = Math.abs(median(wrongToken) - median(wrongId));
            assertThat(difference).as("median difference in µs (wrong token %d, wrong id %d)", median(wrongToken), median(wrongId))
                    .isLessThan(5_000);
        }
    }

    interface Call {
        Answer call() throws Exception;
    }

    static long time(Call call) throws Exception {
        long start = System.nanoTime();
        assertThat(call.call().status()).isEqualTo(404);
        return (System.nanoTime() - start) / 1000;
    }

    static long median(List<Long> values) {
        List<Long> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }

    @Test
    void thePageTakesTheTokenOnceThenAnHttpOnlyStrictCookie() throws Exception {
        try (ServerHarness server = withToken(new SimScript())) {
            for (String path : List.of("/", "/index.html", "/app.js", "/style.css", "/webjars/dompurify/3.3.3/dist/purify.es.mjs", "/nothing")) {
                Answer answer = send("GET", server.url(path), null);
                assertThat(answer.status()).as(path).isEqualTo(401);
                assertThat(answer.body()).as(path).contains("needs its API token").doesNotContain("<script").doesNotContain("import ");
                assertThat(answer.headers().firstValue("Content-Security-Policy")).as(path).contains(ApiServer.CONTENT_SECURITY_POLICY);
                assertThat(answer.headers().firstValue("WWW-Authenticate")).as(path).contains("Bearer realm=\"skillforge\"");
            }
            assertThat(send("GET", server.url("/?token=wrong-token-0123456789"), null).status()).isEqualTo(401);

            Answer signIn = send("GET", server.url("/?token=" + TOKEN), null);
            assertThat(signIn.status()).isEqualTo(303);
            assertThat(signIn.headers().firstValue("Location")).contains("/");
            String setCookie = signIn.headers().firstValue("Set-Cookie").orElseThrow();
            assertThat(setCookie).startsWith(HttpSecurity.SESSION_COOKIE + "=").contains("; HttpOnly").contains("; SameSite=Strict")
                    .contains("; Path=/").doesNotContain(TOKEN);
            String cookie = setCookie.substring(0, setCookie.indexOf(';'));

            Answer page = send("GET", server.url("/"), null, "Cookie", cookie);
            assertThat(page.status()).isEqualTo(200);
            assertThat(page.body()).contains("<script type=\"module\" src=\"/app.js\">");
            assertThat(send("GET", server.url("/app.js"), null, "Cookie", "theme=dark; " + cookie).status()).isEqualTo(200);
            assertThat(send("GET", server.url("/api/conversations"), null, "Cookie", cookie).status()).isEqualTo(200);
            assertThat(send("POST", server.url("/api/conversations"), "{}", "Cookie", cookie).status()).isEqualTo(201);
            assertThat(send("GET", server.url("/"), null, bearer(TOKEN)).status()).isEqualTo(200);
            assertThat(send("GET", server.url("/"), null, "Cookie", cookie + "x").status()).isEqualTo(401);

            // Another token, another cookie: an old cookie dies with the token it came from.
            try (ServerHarness other = ServerHarness.builder(data.resolve("other"), new SimScript())
                    .security(SecuritySettings.defaults().withApiToken(TOKEN + "-rotated")).start()) {
                assertThat(send("GET", other.url("/api/conversations"), null, "Cookie", cookie).status()).isEqualTo(404);
            }
        }
    }

    @Test
    void theSignInFormSetsTheCookieForTheRightTokenOnly() throws Exception {
        try (ServerHarness server = withToken(new SimScript())) {
            Answer wrong = form(server, "token=wrong-token-0123456789");
            assertThat(wrong.status()).isEqualTo(401);
            assertThat(wrong.headers().firstValue("Set-Cookie")).isEmpty();
            assertThat(form(server, "token=").status()).isEqualTo(401);
            assertThat(form(server, "x=" + "y".repeat(10_000)).status()).isEqualTo(401);
            Answer right = form(server, "remember=1&token=" + java.net.URLEncoder.encode(TOKEN, StandardCharsets.UTF_8));
            assertThat(right.status()).isEqualTo(303);
            assertThat(right.headers().firstValue("Set-Cookie").orElseThrow()).startsWith(HttpSecurity.SESSION_COOKIE + "=")
                    .contains("; HttpOnly; SameSite=Strict");
            // Another site cannot sign this browser in (or out) with a form of its own.
            assertThat(form(server, "token=" + TOKEN, "Origin", "null").status()).isEqualTo(403);
            Answer crossSite = form(server, "token=" + TOKEN, "Origin", "https://evil.example");
            assertThat(crossSite.status()).isEqualTo(403);
            assertThat(crossSite.headers().firstValue("Set-Cookie")).isEmpty();
        }
    }

    static Answer form(ServerHarness server, String body, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.url("/signin")))
                .header("Content-Type", "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString(body));
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        return new Answer(response.statusCode(), response.headers(), response.body());
    }

    @Test
    void healthIsOpenForProbesButSaysNothingWithoutTheToken() throws Exception {
        try (ServerHarness server = withToken(new SimScript())) {
            Answer open = send("GET", server.url("/healthz"), null);
            assertThat(open.status()).isEqualTo(200);
            assertThat(open.body()).isEqualTo("{\"status\":\"ok\"}");
            Answer full = send("GET", server.url("/healthz"), null, bearer(TOKEN));
            assertThat(full.json().path("provider").path("name").asText()).isEqualTo("sim");
            assertThat(full.json().path("commands").path("refused").asLong()).isZero();
        }
    }

    @Test
    void otherSitesCannotUseTheBrowsersCookie() throws Exception {
        try (ServerHarness server = withToken(new SimScript())) {
            String setCookie = send("GET", server.url("/?token=" + TOKEN), null).headers().firstValue("Set-Cookie").orElseThrow();
            String cookie = setCookie.substring(0, setCookie.indexOf(';'));
            String self = "http://127.0.0.1:" + server.server.port();
            for (String origin : List.of("https://evil.example", "null", "http://127.0.0.1:1", self + ".evil.example")) {
                Answer answer = send("POST", server.url("/api/conversations"), "{}", "Cookie", cookie, "Origin", origin);
                assertThat(answer.status()).as(origin).isEqualTo(403);
                assertThat(answer.json().path("error").path("code").asText()).isEqualTo("cross_origin");
                assertThat(send("DELETE", server.url("/api/skills/x"), null, "Cookie", cookie, "Origin", origin).status()).isEqualTo(403);
            }
            assertThat(send("POST", server.url("/api/conversations"), "{}", "Cookie", cookie, "Origin", self).status()).isEqualTo(201);
            // A form or text/plain post (what a page can send without asking) is not an API call.
            for (String type : List.of("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x")) {
                HttpResponse<String> answer = HTTP.send(HttpRequest.newBuilder(URI.create(server.url("/api/agent")))
                        .header("Content-Type", type).header("Authorization", "Bearer " + TOKEN)
                        .POST(HttpRequest.BodyPublishers.ofString(SseClient.userMessage("hi"))).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(answer.statusCode()).as(type).isEqualTo(415);
            }
            assertThat(send("GET", server.url("/api/conversations"), null, bearer(TOKEN)).json().path("total").asInt()).isEqualTo(1);
            // No CORS headers unless origins are configured.
            Answer preflight = send("OPTIONS", server.url("/api/conversations"), null, "Origin", "https://evil.example",
                    "Access-Control-Request-Method", "POST");
            assertThat(preflight.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
        }
    }

    static final String APP = "https://app.example";

    ServerHarness withCors() throws IOException {
        return ServerHarness.builder(data, new SimScript())
                .security(SecuritySettings.defaults().withApiToken(TOKEN).withCorsOrigins(List.of(APP))).start();
    }

    @Test
    void configuredCorsOriginsAndOnlyThoseMayCallWithTheToken() throws Exception {
        try (ServerHarness server = withCors()) {
            // What a browser asks before a POST with the token and a JSON body, and what it needs to hear.
            Answer preflight = send("OPTIONS", server.url("/api/conversations"), null, "Origin", APP,
                    "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "authorization,content-type");
            assertThat(preflight.status()).isEqualTo(204);
            assertThat(preflight.headers().firstValue("Access-Control-Allow-Origin")).contains(APP);
            assertThat(preflight.headers().firstValue("Access-Control-Allow-Methods").orElseThrow()).contains("POST", "PATCH", "DELETE");
            assertThat(preflight.headers().firstValue("Access-Control-Allow-Headers").orElseThrow())
                    .containsIgnoringCase("authorization").containsIgnoringCase("content-type").containsIgnoringCase("last-event-id");
            assertThat(preflight.headers().firstValue("Access-Control-Max-Age")).isPresent();
            Answer call = send("POST", server.url("/api/conversations"), "{}", "Origin", APP, "Authorization", "Bearer " + TOKEN);
            assertThat(call.status()).isEqualTo(201);
            assertThat(call.headers().firstValue("Access-Control-Allow-Origin")).contains(APP);
            String id = call.json().path("id").asText();
            Answer rename = send("PATCH", server.url("/api/conversations/" + id), "{\"title\":\"x\"}", "Origin", APP, "Authorization", "Bearer " + TOKEN);
            assertThat(rename.status()).isEqualTo(200);
            assertThat(rename.headers().firstValue("Access-Control-Allow-Origin")).contains(APP);
            // An unauthenticated call from the configured origin gets the one 404, readable by its page.
            Answer anonymous = send("GET", server.url("/api/conversations"), null, "Origin", APP);
            assertThat(anonymous.status()).isEqualTo(404);
            assertThat(anonymous.headers().firstValue("Access-Control-Allow-Origin")).contains(APP);

            Answer other = send("OPTIONS", server.url("/api/conversations"), null, "Origin", "https://evil.example",
                    "Access-Control-Request-Method", "POST");
            assertThat(other.status()).isEqualTo(403);
            assertThat(other.json().path("error").path("code").asText()).isEqualTo("cross_origin");
            assertThat(other.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
            assertThat(send("POST", server.url("/api/conversations"), "{}", "Origin", "https://evil.example", "Authorization", "Bearer " + TOKEN)
                    .status()).isEqualTo(403);
        }
    }

    @Test
    void anUnauthenticatedPreflightTellsNothingAboutRoutes() throws Exception {
        try (ServerHarness server = withCors()) {
            String id = createConversation(server);
            server.skills.save("kept", "---\nname: kept\ndescription: A skill.\n---\nBody.\n");
            List<String> routes = List.of("/api/conversations", "/api/conversations/" + id, "/api/conversations/" + id + "/messages",
                    "/api/conversations/" + id + "/events", "/api/agent", "/api/skills", "/api/skills/kept", "/api/providers", "/healthz",
                    "/", "/app.js", "/signin");
            List<String> nothing = List.of("/api/nothing", "/api/conversations/" + UUID.randomUUID(), "/api/conversations/" + id + "/nothing",
                    "/api/skills/kept/nothing/deeper", "/nothing", "/api");
            for (String origin : List.of(APP, "https://evil.example")) {
                for (String method : List.of("GET", "POST", "PATCH", "DELETE", "PUT")) {
                    Answer reference = send("OPTIONS", server.url("/api/nothing"), null, "Origin", origin, "Access-Control-Request-Method", method);
                    assertThat(reference.status()).isEqualTo(origin.equals(APP) ? 204 : 403);
                    for (String path : java.util.stream.Stream.concat(routes.stream(), nothing.stream()).toList()) {
                        Answer answer = send("OPTIONS", server.url(path), null, "Origin", origin, "Access-Control-Request-Method", method,
                                "Access-Control-Request-Headers", "authorization,content-type");
                        String what = origin + " " + method + " " + path;
                        assertThat(answer.status()).as(what).isEqualTo(reference.status());
                        assertThat(answer.comparableHeaders()).as(what).isEqualTo(reference.comparableHeaders());
                        assertThat(answer.body()).as(what).isEqualTo(reference.body());
                    }
                }
                // An OPTIONS that is not a preflight is a request like any other: without the token, the one 404 under /api.
                Answer route = send("OPTIONS", server.url("/api/conversations"), null, "Origin", origin);
                Answer none = send("OPTIONS", server.url("/api/nothing"), null, "Origin", origin);
                assertThat(route.status()).isEqualTo(404);
                assertThat(route.comparableHeaders()).isEqualTo(none.comparableHeaders());
                assertThat(route.body()).isEqualTo(none.body());
            }
        }
    }

    @Test
    void withoutATokenTheServerAnswersOnlyRequestsAddressedToLoopback() throws Exception {
        // A rebinding attacker's DNS: each of these names answers 127.0.0.1. The Host check must not care.
        List<String> rebound = List.of("deadbeef", "1e100", "face.b00c", "cafe", "127.0.0.1.nip.io", "localhost.evil.com", "localhost.");
        HostileDns.poison(rebound);
        try (ServerHarness server = new ServerHarness(data, new SimScript())) {
            int port = server.server.port();
            List<String> refused = new ArrayList<>();
            rebound.forEach(name -> refused.addAll(List.of(name, name + ":" + port)));
            refused.addAll(List.of("evil.example", "evil.example:" + port, "192.168.1.10", "127.1", "2130706433"));
            for (String host : refused) {
                String answer = raw(port, "GET /api/conversations HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
                assertThat(answer).as(host).startsWith("HTTP/1.1 403").contains("forbidden_host");
            }
            for (String host : List.of("127.0.0.1:" + port, "localhost", "localhost:" + port, "[::1]:80", "[::ffff:127.0.0.1]:" + port)) {
                String answer = raw(port, "GET /api/conversations HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
                assertThat(answer).as(host).startsWith("HTTP/1.1 200");
            }
            assertThat(send("GET", server.url("/healthz"), null).json().path("provider").path("name").asText()).isEqualTo("sim");
        }
    }

    @Test
    void forgeAllowedHostsNamesAProxysHostAndWithATokenTurnsTheHostCheckOn() throws Exception {
        AllowedHosts proxy = AllowedHosts.parse("forge.example.com");
        try (ServerHarness open = ServerHarness.builder(data, new SimScript()).security(SecuritySettings.defaults().withAllowedHosts(proxy))
                .start()) {
            assertThat(raw(open.server.port(), "GET /api/conversations HTTP/1.1\r\nHost: forge.example.com\r\nConnection: close\r\n\r\n"))
                    .startsWith("HTTP/1.1 200");
        }
        try (ServerHarness locked = ServerHarness.builder(data.resolve("locked"), new SimScript())
                .security(SecuritySettings.defaults().withApiToken(TOKEN).withAllowedHosts(proxy)).start()) {
            int port = locked.server.port();
            for (String host : List.of("forge.example.com", "FORGE.EXAMPLE.COM:443", "127.0.0.1:" + port)) {
                assertThat(raw(port, "GET /api/conversations HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: Bearer " + TOKEN
                        + "\r\nConnection: close\r\n\r\n")).as(host).startsWith("HTTP/1.1 200");
            }
            assertThat(raw(port, "GET /api/conversations HTTP/1.1\r\nHost: other.example.com\r\nAuthorization: Bearer " + TOKEN
                    + "\r\nConnection: close\r\n\r\n")).startsWith("HTTP/1.1 403").contains("forbidden_host");
        }
    }

    static String raw(int port, String request) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    // --- the real server process: settings from the environment, as an operator runs it ---

    @Test
    void refusesToStartOnAnOpenAddressWithoutAToken() throws Exception {
        Launched launched = launch("open-without-token", Map.of("FORGE_HOST", "0.0.0.0"));
        assertThat(launched.exitCode()).as(launched.output()).isEqualTo(2);
        assertThat(launched.output()).contains("FORGE_HOST=0.0.0.0").contains("FORGE_API_TOKEN").contains("loopback");
        assertThat(Files.exists(data.resolve("skillforge.db"))).as("nothing was opened").isFalse();

        Launched shortToken = launch("short-token", Map.of("FORGE_HOST", "0.0.0.0", "FORGE_API_TOKEN", "short"));
        assertThat(shortToken.exitCode()).isEqualTo(2);
        assertThat(shortToken.output()).contains("FORGE_API_TOKEN is too short");

        Launched shell = launch("shell-allowed", Map.of("FORGE_ALLOW_COMMANDS", "ls,bash"));
        assertThat(shell.exitCode()).isEqualTo(2);
        assertThat(shell.output()).contains("FORGE_ALLOW_COMMANDS: 'bash' runs other programs");
    }

    @Test
    void startsOnAnOpenAddressWithATokenAndLocksEveryDoor() throws Exception {
        Path log = logFile("open-with-token");
        int port = 0;
        Process process = null;
        // The free port can be taken between the probe and the child's bind (another test's server answered our
        // /healthz in a CI run): the child must say it listens before it is asked anything; on a taken port, another.
        for (int attempt = 1; process == null; attempt++) {
            port = freePort();
            Process started = builder(Map.of("FORGE_HOST", "0.0.0.0", "FORGE_PORT", Integer.toString(port), "FORGE_API_TOKEN", TOKEN,
                    "FORGE_ALLOW_COMMANDS", "ls"), log).start();
            long deadline = System.nanoTime() + Duration.ofSeconds(45).toNanos();
            while (started.isAlive() && !Files.readString(log).contains("SkillForge listening on")) {
                assertThat(System.nanoTime()).as("it listens within 45 s: " + Files.readString(log)).isLessThan(deadline);
                Thread.sleep(50);
            }
            if (started.isAlive()) {
                process = started;
            } else {
                assertThat(Files.readString(log)).as("it exited").contains("is already in use by another program");
                assertThat(attempt).as("free ports taken").isLessThan(3);
            }
        }
        try {
            String base = "http://127.0.0.1:" + port;
            Answer health = send("GET", base + "/healthz", null);
            assertThat(health.body()).isEqualTo("{\"status\":\"ok\"}");
            assertThat(send("GET", base + "/api/conversations", null).status()).isEqualTo(404);
            assertThat(send("GET", base + "/", null).status()).isEqualTo(401);
            assertThat(send("GET", base + "/api/conversations", null, bearer(TOKEN)).status()).isEqualTo(200);
            assertThat(send("GET", base + "/healthz", null, bearer(TOKEN)).json().path("commands").path("allowed").asText()).isEqualTo("ls");
            assertThat(Files.readString(log)).doesNotContain(TOKEN).contains("callers: whoever sends FORGE_API_TOKEN");
        } finally {
            process.destroy();
            process.waitFor();
        }
    }

    record Launched(int exitCode, String output) {
    }

    Launched launch(String name, Map<String, String> env) throws Exception {
        Path log = logFile(name);
        Map<String, String> settings = new java.util.HashMap<>(env);
        settings.putIfAbsent("FORGE_PORT", Integer.toString(freePort()));
        Process process = builder(settings, log).start();
        if (!process.waitFor(45, java.util.concurrent.TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("the server started instead of refusing: " + Files.readString(log));
        }
        return new Launched(process.exitValue(), Files.readString(log));
    }

    ProcessBuilder builder(Map<String, String> env, Path log) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-Xmx256m", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), "dev.skillforge.server.Main", "serve")
                .redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().keySet().removeIf(key -> key.startsWith("FORGE_"));
        builder.environment().put("LC_ALL", ServerProcess.LAUNCHER_LOCALE);
        builder.environment().put("FORGE_DATA_DIR", data.toString());
        builder.environment().putAll(env);
        return builder;
    }

    static Path logFile(String name) throws IOException {
        Path logs = Path.of("target", "process-logs").toAbsolutePath();
        Files.createDirectories(logs);
        return logs.resolve("auth-" + name + ".log");
    }

    static int freePort() throws IOException {
        return ServerProcess.freePort();
    }

    static String read(InputStream in) throws IOException {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
}
