package dev.skillforge.server.page;

import com.microsoft.playwright.Locator;
import dev.skillforge.server.people.Caller;
import com.microsoft.playwright.Response;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.server.config.SecuritySettings;
import dev.skillforge.server.exec.CommandPolicy;
import dev.skillforge.server.exec.ProcessRunner;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.testkit.SimScript;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.util.List;
import java.util.Map;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The page behind a token: opened once with {@code ?token=}, it works from its cookie (fetches and
 * event streams alike); an allowed command completes and a refused one shows as failed with the
 * reason.
 */
class TokenPageTest extends BrowserTest {

    static final String TOKEN = "page-token-0123456789abcdef";

    @Test
    void thePageSignsInOnceAndShowsARefusedCommandAsFailed() throws Exception {
        server = ServerHarness.builder(data, new SimScript(
                SimReply.of("Looking.\n\n<shell>touch notes.txt</shell>\n\n<shell>ls</shell>\n\n<shell>rm -rf notes.txt</shell>"),
                SimReply.of("One file; I may not delete it.")))
                .security(SecuritySettings.defaults().withApiToken(TOKEN)
                        .withCommands(CommandPolicy.resolve(List.of("ls", "touch"), Map.of()), ProcessRunner.Limits.DEFAULT)).start();

        // The sign-in page: a plain form (the CSP allows no inline script, and it needs none).
        context = browser.newContext();
        page = context.newPage();
        page.onPageError(error -> browserErrors.add("uncaught: " + error));
        Response signInPage = page.navigate(server.url("/"));
        assertThat(signInPage.status()).isEqualTo(401);
        page.locator("input[name=token]").fill("not-the-token-0123456789");
        page.locator("button[type=submit]").click();
        assertThat(page.locator("h1")).hasText("This SkillForge server needs its API token");
        page.locator("input[name=token]").fill(TOKEN);
        page.locator("button[type=submit]").click();
        assertThat(page.locator("body[data-ready=true]")).hasCount(1);
        assertThat(page.url()).isEqualTo(server.url("/")).doesNotContain(TOKEN);
        assertThat(context.cookies()).singleElement().satisfies(cookie -> {
            assertThat(cookie.name).isEqualTo(dev.skillforge.server.http.HttpSecurity.SESSION_COOKIE);
            assertThat(cookie.httpOnly).isTrue();
            assertThat(cookie.value).doesNotContain(TOKEN);
        });
        sendMessage("List the files, then delete notes.txt");
        Locator turn = awaitEnd(turns().first());
        assertThat(turn).hasAttribute("data-status", "complete");
        assertThat(command(turn, "cmd-0-1")).hasAttribute("data-status", "completed");
        assertThat(command(turn, "cmd-0-1").locator(".command-output")).hasText("notes.txt\n");
        Locator refused = command(turn, "cmd-0-2");
        assertThat(refused).hasAttribute("data-status", "failed");
        assertThat(refused.locator(".command-output")).containsText("not allowed: 'rm'; allowed: ls, touch");
        String conversation = server.conversations.list(Caller.LOCAL, 1, 0).getFirst().id();
        assertThat(server.server.workspaces().open(Caller.LOCAL_ID, conversation).root().resolve("notes.txt")).exists();

        // A reload re-attaches from the cookie; a browser without it sees only the sign-in page.
        page.reload();
        awaitEnd(turns().first());
        var stranger = browser.newContext();
        try {
            Response answer = stranger.newPage().navigate(server.url("/"));
            assertThat(answer.status()).isEqualTo(401);
            assertThat(answer.text()).contains("needs its API token");
        } finally {
            stranger.close();
        }
    }
}
