package dev.skillforge.server.page;

import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import dev.skillforge.server.access.TeamSettings;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.price.TokenPrices;
import dev.skillforge.server.provider.sim.SimProviderServer;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.testkit.ServerProcess;
import dev.skillforge.testkit.SimScript;
import dev.skillforge.testkit.TestIssuer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two people sign in through the page at a real OpenID Connect provider (mock-oauth2-server's login form, in
 * Chromium): each sees their own chats only, makes and revokes a personal token, and the admin sees the people,
 * sets a budget the other person's page then shows and that refuses their turn, publishes a skill to the team
 * library the other reads, and disables them (their page stops at once); signing out ends the session.
 */
class PeoplePageTest extends BrowserTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static TestIssuer issuer;

    @BeforeAll
    static void startIssuer() throws Exception {
        issuer = TestIssuer.start();
    }

    @AfterAll
    static void stopIssuer() {
        if (issuer != null) {
            issuer.close();
        }
    }

    @Test
    void twoPeopleSignInAndEachSeesTheirOwnWhileTheAdminManagesThem() throws Exception {
        int port = ServerProcess.freePort();
        TeamSettings team = new TeamSettings(URI.create(issuer.issuer()), "skillforge", "its-secret", URI.create("http://127.0.0.1:" + port),
                Set.of("alice@example.org"), OptionalLong.empty(), Duration.ofDays(1));
        server = ServerHarness.builder(data, new SimScript(SimReply.of("Cold brew: steep coarse coffee for 16 hours."))).team(team)
                .providers(List.of(new ServerHarness.SimProvider("sim", SimProviderServer.MODEL, ServerHarness.Format.OPENAI, 128_000,
                        new TokenPrices(3.0, 0.3, 3.0, 15.0)))).start();

        // Alice, an admin, signs in at the issuer's form and lands on the chat; her turn is hers.
        context = browser.newContext();
        page = signIn(context, "alice", "{\"email\":\"alice@example.org\",\"email_verified\":true,\"name\":\"Alice\"}");
        assertThat(page.locator("#open-account")).hasText("Alice");
        sendMessage("How do I make cold brew?");
        assertThat(awaitEnd(turns().first())).hasAttribute("data-status", "complete");
        String alicesChat = conversationId();
        assertThat(page.locator("#conversation-list .conversation")).hasCount(1);

        BrowserContext bobsBrowser = browser.newContext();
        try {
            // Bob, not an admin: no chats of his, Alice's is not found, and his account has no people in it.
            Page bob = signIn(bobsBrowser, "bob", "{\"email\":\"bob@example.org\",\"email_verified\":true,\"name\":\"Bob\"}");
            assertThat(bob.locator("#open-account")).hasText("Bob");
            assertThat(bob.locator("#conversation-list-empty")).isVisible();
            bob.navigate(server.url("/#/c/" + alicesChat));
            assertThat(bob.locator("#toast")).hasText("That conversation no longer exists.");
            assertThat(bob.locator("#turns > .turn")).hasCount(0);
            bob.locator("#open-account").click();
            assertThat(bob.locator("#account-dialog")).isVisible();
            assertThat(bob.locator("#admin-section")).isHidden();

            // His personal token: shown once, listed, used by a script, revoked in two clicks, refused from then on.
            bob.locator("#token-name").fill("laptop script");
            bob.locator("#token-form button[type=submit]").click();
            Locator secret = bob.locator("#new-token .token-secret");
            assertThat(secret).isVisible();
            String token = secret.textContent();
            assertThat(bob.locator("#token-list .token")).hasCount(1);
            assertThat(bob.locator("#token-list .token-name")).hasText("laptop script");
            assertThat(me(token).body()).contains("\"name\":\"Bob\"");
            Locator revoke = bob.locator("#token-list .token button");
            revoke.click();
            assertThat(revoke).hasText("Revoke: sure?");
            revoke.click();
            assertThat(bob.locator("#token-list .token")).hasCount(0);
            assertThat(me(token).statusCode()).isEqualTo(401);
            bob.locator("#close-account").click();
            assertThat(bob.locator("#new-token")).isEmpty();

            // Alice sees both people and gives Bob a budget of nothing: his page shows it and his turn is refused.
            page.locator("#open-account").click();
            Locator people = page.locator("#people-list tr");
            assertThat(people).hasCount(2);
            Locator bobsRow = people.filter(new Locator.FilterOptions().setHasText("bob@example.org"));
            assertThat(bobsRow.locator(".person-name")).hasText("Bob");
            assertThat(people.filter(new Locator.FilterOptions().setHasText("alice@example.org")).locator("input[type=checkbox]"))
                    .isDisabled();
            bobsRow.locator(".budget-input").fill("0");
            bobsRow.locator(".budget-input").press("Enter"); // the change event
            assertThat(page.locator("#people-list tr").filter(new Locator.FilterOptions().setHasText("bob@example.org"))
                    .locator(".budget-input")).hasValue("0");
            screenshot("peopleAsTheAdminSeesThem");
            page.locator("#close-account").click();
            bob.reload();
            assertThat(bob.locator("body[data-ready=true]")).hasCount(1);
            assertThat(bob.locator("#budget-left")).hasText("$0.00 left of $0.00");
            bob.locator("#input").fill("One more question");
            bob.locator("#input").press("Enter");
            Locator refused = bob.locator("#turns > .turn").first();
            assertThat(refused).hasAttribute("data-status", "failed");
            assertThat(refused.locator(".turn-error")).containsText("Your monthly budget of $0.00 is spent");
            assertThat(bob.locator("#input")).hasValue("One more question");

            // Alice publishes a skill of hers; Bob's skills panel lists it from the team library.
            Object saved = page.evaluate("""
                    async () => (await fetch('/api/skills/cold-brew', {method: 'PUT', headers: {'Content-Type': 'application/json'},
                      body: JSON.stringify({content: '---\\nname: cold-brew\\ndescription: Make cold brew.\\n---\\n# Cold brew\\n'})})).status""");
            assertThat(saved).isIn(200, 201);
            page.locator("#open-skills").click();
            page.locator("#skill-list .skill").filter(new Locator.FilterOptions().setHasText("cold-brew")).click();
            page.locator("#skill-publish").click();
            assertThat(page.locator("#toast")).containsText("cold-brew is in the team library now");
            bob.locator("#open-skills").click();
            assertThat(bob.locator("#skill-list .skill")).hasCount(1);
            assertThat(bob.locator("#skill-list .skill .skill-badge")).hasText("team");

            // Alice disables Bob: his page stops at its next call, with a way to sign in again.
            page.locator("#open-account").click();
            Locator disabled = page.locator("#people-list tr").filter(new Locator.FilterOptions().setHasText("bob@example.org"))
                    .locator("input[type=checkbox]");
            disabled.check();
            assertThat(page.locator("#people-list tr.disabled")).hasCount(1);
            page.locator("#close-account").click();
            bob.locator("#new-chat").click();
            bob.locator("#input").fill("Am I still here?");
            bob.locator("#input").press("Enter");
            assertThat(bob.locator("#signed-out")).isVisible();
            assertThat(bob.locator("#signed-out p")).hasText("Your session has ended.");
            assertThat(bob.locator("#signed-out a")).hasAttribute("href", "/auth/login");
        } finally {
            bobsBrowser.close();
        }

        // Alice signs out: the page says so, and her session no longer opens anything.
        String session = context.cookies().stream().filter(cookie -> cookie.name.equals("forge_session")).findFirst().orElseThrow().value;
        page.locator("#open-account").click();
        page.locator("#sign-out").click();
        assertThat(page.locator("#signed-out p")).hasText("You are signed out.");
        HttpResponse<String> after = HTTP.send(HttpRequest.newBuilder(URI.create(server.url("/api/me")))
                .header("Cookie", "forge_session=" + session).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(after.statusCode()).isEqualTo(401);
    }

    /**
     * Opens the page, which sends the browser to the issuer's login form; types the name and claims there, and comes
     * back signed in. The login form asks for fonts from the internet: nothing but loopback is let through.
     */
    private Page signIn(BrowserContext browserContext, String username, String claims) {
        browserContext.route(url -> !url.startsWith("http://127.0.0.1:"), route -> route.abort());
        Page signingIn = browserContext.newPage();
        signingIn.onPageError(error -> browserErrors.add("uncaught: " + error));
        signingIn.navigate(server.url("/"));
        signingIn.locator("input[name=username]").fill(username);
        assertThat(signingIn.url()).startsWith(issuer.issuer() + "/authorize?").contains("code_challenge_method=S256", "nonce=", "state=");
        signingIn.locator("textarea[name=claims]").fill(claims);
        signingIn.locator("input[type=submit]").click();
        assertThat(signingIn).hasURL(server.url("/"));
        assertThat(signingIn.locator("body[data-ready=true]")).hasCount(1);
        return signingIn;
    }

    private HttpResponse<String> me(String token) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(server.url("/api/me"))).header("Authorization", "Bearer " + token).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
