package dev.skillforge.server.page;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.testkit.SimScript;
import dev.skillforge.testkit.SseClient;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import com.microsoft.playwright.Page;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/** The page that reads /openapi.json: every documented operation and schema shown, and nothing fetched from elsewhere. */
class ApiDocsPageTest extends BrowserTest {

    @Test
    void everyOperationAndSchemaIsShownFromThisServerAlone() throws Exception {
        start(new SimScript());
        JsonNode doc = SseClient.get(server.url("/openapi.json")).json();
        int operations = 0;
        for (JsonNode path : doc.path("paths")) {
            for (String method : List.of("get", "post", "patch", "put", "delete")) {
                operations += path.has(method) ? 1 : 0;
            }
        }
        List<String> requested = new CopyOnWriteArrayList<>();
        open("/api-docs.html");
        page.onRequest(request -> requested.add(request.url()));

        assertThat(page.locator("section.operation")).hasCount(operations);
        assertThat(page.locator("section.operation", new Page.LocatorOptions().setHasText("/api/agent")))
                .containsText("text/event-stream: Event");
        assertThat(page.locator("h3", new Page.LocatorOptions().setHasText("DoneEvent"))).hasCount(1);
        page.reload();
        assertThat(page.locator("section.operation")).hasCount(operations);
        assertThat(requested).isNotEmpty().allSatisfy(url -> assertThat(url).startsWith(server.url("/")));
    }
}
