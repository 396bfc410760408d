package dev.skillforge.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.server.json.Json;

import java.io.IOException;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * A real OpenID Connect provider nobody here wrote, for the tests: NAV's mock-oauth2-server, run as a process of its
 * own on a loopback port (its libraries, copied to {@code skillforge-test-issuer/target/lib}, never meet the server's).
 * It signs anyone in who types a name into its login form, with the claims typed beside it, and issues real signed
 * tokens (RS256, its JWKS), with the authorization code flow and PKCE. Its issuer is {@code http://127.0.0.1:PORT/default}.
 *
 * <p>{@link #signIn} goes through a server's sign-in over plain HTTP as a browser would; {@link #accessToken} gets an
 * access token for a resource as an MCP client would.
 */
public final class TestIssuer implements AutoCloseable {

    private static final Path LIBRARIES = Path.of("..", "skillforge-test-issuer", "target", "lib");
    private static final String MAIN = "no.nav.security.mock.oauth2.StandaloneMockOAuth2ServerKt";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER).connectTimeout(Duration.ofSeconds(5)).build();

    private final Process process;
    private final int port;

    private TestIssuer(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** Starts an issuer and waits until its discovery document is served. */
    public static TestIssuer start() throws IOException, InterruptedException {
        if (!Files.isDirectory(LIBRARIES)) {
            throw new IllegalStateException(LIBRARIES.toAbsolutePath() + " is missing: build the skillforge-test-issuer module first");
        }
        int port = ServerProcess.freePort();
        Path log = Path.of("target", "process-logs", "test-issuer-" + port + ".log").toAbsolutePath();
        Files.createDirectories(log.getParent());
        ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx128m",
                "-XX:TieredStopAtLevel=1", "-cp", LIBRARIES.toAbsolutePath() + "/*", MAIN)
                .redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().put("SERVER_PORT", Integer.toString(port));
        builder.environment().put("SERVER_HOSTNAME", "127.0.0.1");
        builder.environment().put("JSON_CONFIG", "{\"interactiveLogin\":true}");
        TestIssuer issuer = new TestIssuer(builder.start(), port);
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (true) {
            try {
                HttpResponse<String> discovery = HTTP.send(HttpRequest.newBuilder(URI.create(issuer.issuer()
                        + "/.well-known/openid-configuration")).build(), HttpResponse.BodyHandlers.ofString());
                if (discovery.statusCode() == 200) {
                    return issuer;
                }
            } catch (IOException e) {
                // not listening yet
            }
            if (!issuer.process.isAlive() || System.nanoTime() > deadline) {
                issuer.close();
                throw new IllegalStateException("the test issuer did not start; its log: " + Files.readString(log));
            }
            Thread.sleep(50);
        }
    }

    /** The issuer's URL, as its tokens name it ({@code iss}). */
    public String issuer() {
        return "http://127.0.0.1:" + port + "/default";
    }

    /**
     * Signs {@code username} in at {@code server} over plain HTTP, as a browser would: the server's {@code /auth/login}, the
     * issuer's login form (with {@code claims}: e-mail, name…), the server's callback.
     *
     * @return the session cookie's value the server set
     * @throws AssertionError when a step does not answer as it should, with what it answered
     */
    public String signIn(String serverUrl, String username, Map<String, Object> claims) throws IOException, InterruptedException {
        HttpResponse<String> login = get(serverUrl + "/auth/login");
        String authorize = location(login, "the server's /auth/login");
        HttpResponse<String> form = post(authorize, Map.of("username", username, "claims", Json.write(Json.MAPPER.valueToTree(claims))));
        String callback = location(form, "the issuer's login form");
        HttpResponse<String> back = get(callback);
        if (back.statusCode() != 302) {
            throw new AssertionError("the server's callback answered " + back.statusCode() + ": " + back.body());
        }
        return back.headers().allValues("Set-Cookie").stream().filter(cookie -> cookie.startsWith("forge_session="))
                .map(cookie -> cookie.substring("forge_session=".length(), cookie.indexOf(';'))).findFirst()
                .orElseThrow(() -> new AssertionError("the callback set no session cookie: " + back.headers().map()));
    }

    /**
     * An access token for {@code username} with {@code claims} (an {@code aud} among them makes it for that resource), as an
     * MCP client gets one: the authorization code flow with PKCE, as client {@code client}.
     */
    public String accessToken(String client, String username, Map<String, Object> claims) throws IOException, InterruptedException {
        String redirect = "http://127.0.0.1:1/callback";
        String verifier = UUID.randomUUID() + "-" + UUID.randomUUID();
        String authorize = issuer() + "/authorize?" + form(Map.of("response_type", "code", "client_id", client, "redirect_uri", redirect,
                "scope", "openid profile email", "state", UUID.randomUUID().toString(), "code_challenge", challenge(verifier),
                "code_challenge_method", "S256"));
        HttpResponse<String> signedIn = post(authorize, Map.of("username", username, "claims", Json.write(Json.MAPPER.valueToTree(claims))));
        String code = Optional.of(location(signedIn, "the issuer's login form")).map(URI::create).map(URI::getRawQuery).stream()
                .flatMap(query -> List.of(query.split("&")).stream()).filter(pair -> pair.startsWith("code=")).map(pair -> pair.substring(5))
                .findFirst().orElseThrow();
        HttpResponse<String> token = HTTP.send(HttpRequest.newBuilder(URI.create(issuer() + "/token"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form(Map.of("grant_type", "authorization_code", "code",
                        URLDecoder.decode(code, StandardCharsets.UTF_8), "redirect_uri", redirect, "client_id", client, "code_verifier", verifier)))).build(),
                HttpResponse.BodyHandlers.ofString());
        JsonNode body = Json.parse(token.body());
        if (token.statusCode() != 200 || !body.path("access_token").isTextual()) {
            throw new AssertionError("the issuer's token endpoint answered " + token.statusCode() + ": " + token.body());
        }
        return body.path("access_token").asText();
    }

    private static HttpResponse<String> get(String url) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> post(String url, Map<String, String> fields) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form(fields))).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String location(HttpResponse<String> response, String what) {
        return response.headers().firstValue("Location").orElseThrow(() -> new AssertionError(what + " answered "
                + response.statusCode() + " without a Location: " + response.body()));
    }

    private static String form(Map<String, String> fields) {
        return fields.entrySet().stream().map(field -> URLEncoder.encode(field.getKey(), StandardCharsets.UTF_8) + "="
                + URLEncoder.encode(field.getValue(), StandardCharsets.UTF_8)).collect(Collectors.joining("&"));
    }

    private static String challenge(String verifier) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
