package dev.skillforge.server.page;

import com.sun.net.httpserver.HttpServer;
import dev.skillforge.server.people.Caller;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.server.config.SecuritySettings;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.testkit.SimScript;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * CORS as a browser does it: a page of a configured origin calls the API with the token, so
 * Chromium first sends a preflight (without credentials, answered the same for every path) and then
 * the request; a page of another origin gets nothing sent at all.
 */
class CorsBrowserTest extends BrowserTest {

    static final String TOKEN = "cors-token-0123456789abcdef";

    /** Calls the API from the page: {@code [api, token, method, path, body]}; the status and the body, or how it failed. */
    static final String CALL = """
            async ([api, token, method, path, body]) => {
              try {
                const response = await fetch(api + path, {method, body: body || undefined,
                    headers: {'Authorization': 'Bearer ' + token, 'Content-Type': 'application/json'}});
                return response.status + ' ' + await response.text();
              } catch (e) {
                return 'blocked: ' + e.name;
              }
            }""";

    @Test
    void aConfiguredOriginsPageUsesTheApiWithTheTokenAndAnotherOriginsPageCannot() throws Exception {
        HttpServer app = pageServer();
        HttpServer other = pageServer();
        try {
            String appOrigin = "http://127.0.0.1:" + app.getAddress().getPort();
            server = ServerHarness.builder(data, new SimScript(SimReply.of("Hello, other origin.")))
                    .security(SecuritySettings.defaults().withApiToken(TOKEN).withCorsOrigins(List.of(appOrigin))).start();
            String api = server.url("");
            context = browser.newContext();
            page = context.newPage();

            page.navigate(appOrigin + "/");
            String created = call(api, "POST", "/api/conversations", "{\"title\":\"from another origin\"}");
            assertThat(created).startsWith("201 ").contains("\"title\":\"from another origin\"");
            String id = created.replaceAll(".*\"id\":\"([^\"]+)\".*", "$1");
            assertThat(call(api, "PATCH", "/api/conversations/" + id, "{\"title\":\"renamed\"}")).startsWith("200 ");
            assertThat(call(api, "POST", "/api/conversations/" + id + "/messages", "{\"content\":\"hi\"}"))
                    .startsWith("200 ").contains("Hello, other origin.").contains("\"type\":\"done\"");
            assertThat(call(api, "GET", "/api/nothing", null)).as("an error is readable too").startsWith("404 ");

            page.navigate("http://127.0.0.1:" + other.getAddress().getPort() + "/");
            assertThat(call(api, "POST", "/api/conversations", "{\"title\":\"from a stranger\"}")).isEqualTo("blocked: TypeError");
            assertThat(call(api, "DELETE", "/api/conversations/" + id, null)).isEqualTo("blocked: TypeError");
            assertThat(server.conversations.count(Caller.LOCAL)).as("the stranger's requests were never sent").isEqualTo(1L);
        } finally {
            app.stop(0);
            other.stop(0);
        }
    }

    private String call(String api, String method, String path, String body) {
        return (String) page.evaluate(CALL, Arrays.asList(api, TOKEN, method, path, body));
    }

    /** A page of its own origin (another loopback port): an empty document for the test's script to run in. */
    private static HttpServer pageServer() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            byte[] page = "<!doctype html><title>another site</title><p>another site</p>".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/html;charset=utf-8");
            exchange.sendResponseHeaders(200, page.length);
            exchange.getResponseBody().write(page);
            exchange.close();
        });
        server.start();
        return server;
    }
}
