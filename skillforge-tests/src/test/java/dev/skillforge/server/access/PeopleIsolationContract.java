package dev.skillforge.server.access;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.server.config.SecuritySettings;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.price.TokenPrices;
import dev.skillforge.server.provider.sim.SimProviderServer;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.server.provider.sim.SimResponder;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.testkit.ServerProcess;
import dev.skillforge.testkit.SimScript;
import dev.skillforge.testkit.TestIssuer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract every door of a team server keeps, run on SQLite ({@link SqlitePeopleIsolationTest}) and on PostgreSQL
 * with two instances ({@link PostgresPeopleIsolationTest}, where Bob's requests go to the other instance): people sign
 * in at a real OpenID Connect issuer ({@link TestIssuer}); another person's conversation, attachment, run, workspace
 * or token is answered exactly as one that does not exist (404) on the HTTP API with a session or a personal token, on
 * MCP and on the live change feed; admins alone see and change people; a disabled person and a revoked token stop at
 * once, on every instance; a spent budget refuses a turn before any model call.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class PeopleIsolationContract {

    static final String ALICE = "alice";
    static final String BOB = "bob";
    /** Known prices, so a turn costs something and budgets count. */
    static final TokenPrices PRICES = new TokenPrices(3.0, 0.3, 3.0, 15.0); // no cache-write price: OpenAI's wire says no writes
    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5))
            .followRedirects(HttpClient.Redirect.NEVER).build();

    /** A person signed in: the instance they use, their session cookie and a personal access token. */
    record Person(String name, ServerHarness instance, String cookie, String token, String tokenId) {
    }

    TestIssuer issuer;
    final AtomicReference<SimResponder> responder = new AtomicReference<>(new SimScript(SimReply.of("Hello.")));
    Person alice;
    Person bob;
    /** Alice's conversation, its attachment, and her fork of it. */
    String conversation;
    String attachment;
    String fork;

    /** The instance Alice uses and the one Bob uses (the same one on a single server). */
    abstract ServerHarness aliceInstance();

    abstract ServerHarness bobInstance();

    /** Starts the instance(s) on the issuer's team settings ({@link #team}). */
    abstract void startInstances() throws Exception;

    abstract void stopInstances() throws Exception;

    static TeamSettings team(String issuer, int port) {
        return new TeamSettings(URI.create(issuer), "skillforge", "its-secret", URI.create("http://127.0.0.1:" + port),
                Set.of("alice@example.org"), OptionalLong.empty(), Duration.ofDays(1));
    }

    static List<ServerHarness.SimProvider> pricedProviders() {
        return List.of(new ServerHarness.SimProvider("sim", SimProviderServer.MODEL, ServerHarness.Format.OPENAI, 128_000, PRICES));
    }

    SimResponder responder() {
        return messages -> responder.get().reply(messages);
    }

    static SecuritySettings security() {
        return SecuritySettings.defaults();
    }

    @BeforeAll
    void signInTwoPeople() throws Exception {
        issuer = TestIssuer.start();
        startInstances();
        alice = person(ALICE, aliceInstance(), Map.of("email", "alice@example.org", "email_verified", true, "name", "Alice"));
        bob = person(BOB, bobInstance(), Map.of("email", "bob@example.org", "email_verified", true, "name", "Bob"));
        conversation = Json.parse(send(alice, "POST", "/api/conversations", "{}").body()).path("id").asText();
        responder.set(new SimScript(SimReply.of("Read it.")));
        String message = "{\"content\":\"Read this\",\"attachments\":[{\"name\":\"notes.txt\",\"mediaType\":\"text/plain\",\"data\":\""
                + Base64.getEncoder().encodeToString("cold brew notes".getBytes(StandardCharsets.UTF_8)) + "\"}]}";
        HttpResponse<String> turn = send(alice, "POST", "/api/conversations/" + conversation + "/messages", message);
        assertThat(turn.statusCode()).as(turn.body()).isEqualTo(200);
        JsonNode snapshot = Json.parse(send(alice, "GET", "/api/conversations/" + conversation, null).body());
        attachment = snapshot.path("entries").get(0).path("attachments").get(0).path("sha256").asText();
        fork = Json.parse(send(alice, "POST", "/api/conversations/" + conversation + "/fork", "{\"beforeTurn\":1}").body()).path("id").asText();
    }

    Person person(String name, ServerHarness instance, Map<String, Object> claims) throws Exception {
        String cookie = issuer.signIn(instance.url(""), name, claims);
        HttpResponse<String> made = send(instance, "POST", "/api/tokens", "{\"name\":\"script of " + name + "\"}", "Cookie", "forge_session=" + cookie);
        assertThat(made.statusCode()).as(made.body()).isEqualTo(201);
        JsonNode token = Json.parse(made.body());
        return new Person(name, instance, cookie, token.path("token").asText(), token.path("id").asText());
    }

    @AfterAll
    void stop() throws Exception {
        stopInstances();
        if (issuer != null) {
            issuer.close();
        }
    }

    static HttpResponse<String> send(ServerHarness instance, String method, String path, String body, String... headers) throws IOException,
            InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(instance.url(path)))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** As the person's page would: with their session cookie. */
    static HttpResponse<String> send(Person person, String method, String path, String body) throws IOException, InterruptedException {
        return send(person.instance(), method, path, body, "Cookie", "forge_session=" + person.cookie());
    }

    /** As the person's scripts would: with their personal access token. */
    static HttpResponse<String> sendWithToken(Person person, String method, String path, String body) throws IOException,
            InterruptedException {
        return send(person.instance(), method, path, body, "Authorization", "Bearer " + person.token());
    }

    /** Every call of the API that names one of Alice's things. */
    List<String[]> callsOnAlicesThings(String id) {
        return List.of(
                new String[] {"GET", "/api/conversations/" + id, null},
                new String[] {"PATCH", "/api/conversations/" + id, "{\"title\":\"mine now\"}"},
                new String[] {"POST", "/api/conversations/" + id + "/messages", "{\"content\":\"hello\"}"},
                new String[] {"GET", "/api/conversations/" + id + "/events", null},
                new String[] {"POST", "/api/conversations/" + id + "/stop", "{}"},
                new String[] {"GET", "/api/conversations/" + id + "/export", null},
                new String[] {"GET", "/api/conversations/" + id + "/export?format=markdown", null},
                new String[] {"GET", "/api/conversations/" + id + "/attachments/" + attachment, null},
                new String[] {"GET", "/api/conversations/" + id + "/attachments/" + attachment + "/text", null},
                new String[] {"POST", "/api/conversations/" + id + "/fork", "{\"beforeTurn\":0}"},
                new String[] {"GET", "/api/conversations/" + id + "/workspace", null},
                new String[] {"DELETE", "/api/conversations/" + id + "/workspace", null},
                new String[] {"DELETE", "/api/conversations/" + id, null},
                new String[] {"DELETE", "/api/tokens/" + alice.tokenId(), null});
    }

    @Test
    @Order(1)
    void anotherPersonsThingsAreNotFoundOnEveryCallWithASessionOrAToken() throws Exception {
        String unknown = UUID.randomUUID().toString();
        for (String id : List.of(conversation, fork)) {
            for (String[] call : callsOnAlicesThings(id)) {
                for (boolean token : List.of(false, true)) {
                    HttpResponse<String> answer = token ? sendWithToken(bob, call[0], call[1], call[2]) : send(bob, call[0], call[1], call[2]);
                    String what = "Bob " + (token ? "with his token: " : "with his session: ") + call[0] + " " + call[1];
                    assertThat(answer.statusCode()).as(what + " answered " + answer.body()).isEqualTo(404);
                    HttpResponse<String> missing = send(bob, call[0], call[1].replace(id, unknown), call[2]);
                    if (!call[1].startsWith("/api/tokens")) {
                        assertThat(Json.parse(answer.body()).path("error").path("code").asText()).as(what)
                                .isEqualTo(Json.parse(missing.body()).path("error").path("code").asText());
                    }
                }
            }
        }
        JsonNode mine = Json.parse(send(alice, "GET", "/api/conversations/" + conversation, null).body());
        assertThat(mine.path("title").asText()).as("Alice's conversation is as she left it").isNotEqualTo("mine now");
        assertThat(send(alice, "GET", "/api/conversations/" + fork, null).statusCode()).isEqualTo(200);
    }

    @Test
    @Order(2)
    void listsAndSearchesHoldOnlyTheirPersonsConversations() throws Exception {
        String bobs = Json.parse(send(bob, "POST", "/api/conversations", "{\"title\":\"cold brew for bob\"}").body()).path("id").asText();
        JsonNode bobsList = Json.parse(sendWithToken(bob, "GET", "/api/conversations", null).body());
        assertThat(bobsList.path("conversations").findValuesAsText("id")).containsExactly(bobs);
        assertThat(bobsList.path("total").asLong()).isEqualTo(1);
        JsonNode alicesList = Json.parse(send(alice, "GET", "/api/conversations", null).body());
        assertThat(alicesList.path("conversations").findValuesAsText("id")).as("her conversation's thread is one row, its fork shown")
                .contains(fork).doesNotContain(conversation, bobs);
        JsonNode bobsSearch = Json.parse(send(bob, "GET", "/api/conversations/search?q=cold", null).body());
        assertThat(bobsSearch.path("conversations").findValuesAsText("id")).containsExactly(bobs);
        JsonNode alicesSearch = Json.parse(send(alice, "GET", "/api/conversations/search?q=cold", null).body());
        assertThat(alicesSearch.path("conversations").findValuesAsText("id")).doesNotContain(bobs);
        JsonNode alicesOwn = Json.parse(send(alice, "GET", "/api/conversations/search?q=read", null).body());
        assertThat(alicesOwn.path("conversations").findValuesAsText("id")).contains(fork);
        JsonNode bobsForHers = Json.parse(send(bob, "GET", "/api/conversations/search?q=read", null).body());
        assertThat(bobsForHers.path("conversations").findValuesAsText("id")).doesNotContain(conversation, fork);
    }

    @Test
    @Order(3)
    void theChangeFeedTellsEachPersonOfTheirOwnConversationsOnly() throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(bob.instance().url("/api/conversations/changes")))
                .header("Accept", "text/event-stream").header("Cookie", "forge_session=" + bob.cookie()).build();
        HttpResponse<InputStream> stream = HTTP.send(request, HttpResponse.BodyHandlers.ofInputStream());
        assertThat(stream.statusCode()).isEqualTo(200);
        try (InputStream body = stream.body()) {
            BufferedReader reader = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
            // Alice changes hers on Bob's instance; then Bob makes one: his is the first change his feed may tell.
            ServerHarness bobsInstance = bob.instance();
            HttpResponse<String> renamed = send(bobsInstance, "PATCH", "/api/conversations/" + conversation, "{\"title\":\"renamed by alice\"}",
                    "Cookie", "forge_session=" + alice.cookie());
            assertThat(renamed.statusCode()).as(renamed.body()).isEqualTo(200);
            String alicesNew = Json.parse(send(bobsInstance, "POST", "/api/conversations", "{}", "Cookie", "forge_session=" + alice.cookie())
                    .body()).path("id").asText();
            String bobsNew = Json.parse(send(bob, "POST", "/api/conversations", "{}").body()).path("id").asText();
            List<String> told = new ArrayList<>();
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.startsWith("data: ")) {
                    String id = Json.parse(line.substring(6)).path("id").asText();
                    told.add(id);
                    if (id.equals(bobsNew)) {
                        break;
                    }
                }
            }
            assertThat(told).as("what Bob's feed told him").doesNotContain(conversation, alicesNew, fork).endsWith(bobsNew);
        }
    }

    @Test
    @Order(4)
    void mcpActsForTheTokensPersonAndFindsNoOneElsesConversation() throws Exception {
        JsonNode refused = McpCalls.chat(bob.instance(), "Bearer " + bob.token(), "go on", conversation);
        assertThat(refused.path("result").path("isError").asBoolean()).as(refused.toString()).isTrue();
        assertThat(refused.toString()).contains("No conversation with id " + conversation);
        responder.set(new SimScript(SimReply.of("Hello Bob.")));
        JsonNode mine = McpCalls.chat(bob.instance(), "Bearer " + bob.token(), "hello", null);
        assertThat(mine.path("result").path("isError").asBoolean()).as(mine.toString()).isFalse();
        String id = mine.path("result").path("structuredContent").path("continuation_id").asText();
        assertThat(send(bob, "GET", "/api/conversations/" + id, null).statusCode()).isEqualTo(200);
        assertThat(send(alice, "GET", "/api/conversations/" + id, null).statusCode()).isEqualTo(404);
    }

    @Test
    @Order(5)
    void onlyAdminsSeeAndChangePeople() throws Exception {
        assertThat(send(bob, "GET", "/api/admin/users", null).statusCode()).isEqualTo(403);
        assertThat(sendWithToken(bob, "PATCH", "/api/admin/users/" + UUID.randomUUID(), "{\"disabled\":true}").statusCode()).isEqualTo(403);
        JsonNode me = Json.parse(send(alice, "GET", "/api/me", null).body());
        assertThat(me.path("admin").asBoolean()).isTrue();
        assertThat(me.path("email").asText()).isEqualTo("alice@example.org");
        assertThat(Json.parse(send(bob, "GET", "/api/me", null).body()).path("admin").asBoolean()).isFalse();
        JsonNode people = Json.parse(send(alice, "GET", "/api/admin/users", null).body());
        assertThat(people.path("users").findValuesAsText("email")).containsExactlyInAnyOrder("alice@example.org", "bob@example.org");
        JsonNode aliceRow = findUser(people, "alice@example.org");
        assertThat(aliceRow.path("conversations").asLong()).isGreaterThanOrEqualTo(2);
        assertThat(aliceRow.path("tokens").asLong()).isEqualTo(1);
    }

    @Test
    @Order(5)
    void eachPersonsSettingsAreTheirOwnAndStartOnlyTheirChats() throws Exception {
        HttpResponse<String> saved = sendWithToken(alice, "PUT", "/api/me/settings",
                "{\"defaultProvider\":null,\"theme\":\"dark\",\"instructions\":\"Sign every answer as Alice's agent.\"}");
        assertThat(saved.statusCode()).as(saved.body()).isEqualTo(200);
        assertThat(Json.parse(send(bob, "GET", "/api/me/settings", null).body()).path("instructions").asText()).isEmpty();
        assertThat(Json.parse(send(alice, "GET", "/api/me/settings", null).body()).path("theme").asText()).isEqualTo("dark");

        String bobs = Json.parse(send(bob, "POST", "/api/conversations", "{}").body()).path("id").asText();
        String alices = Json.parse(send(alice, "POST", "/api/conversations", "{}").body()).path("id").asText();
        assertThat(systemPrompt(bob, bobs)).doesNotContain("Alice's agent");
        assertThat(systemPrompt(alice, alices)).endsWith("Sign every answer as Alice's agent.\n");
    }

    /** The system prompt a conversation's next request carries, from its JSON export. */
    private static String systemPrompt(Person person, String conversation) throws Exception {
        HttpResponse<String> export = send(person, "GET", "/api/conversations/" + conversation + "/export", null);
        assertThat(export.statusCode()).as(export.body()).isEqualTo(200);
        JsonNode messages = Json.parse(export.body());
        JsonNode system = (messages.isArray() ? messages : messages.path("messages")).path(0);
        assertThat(system.path("role").asText()).as(export.body()).isEqualTo("system");
        return system.path("content").asText();
    }

    @Test
    @Order(6)
    void skillsArePeoplesOwnAndOnlyAdminsPublishToTheTeamLibraryEveryoneReads() throws Exception {
        String skill = "---\nname: %s\ndescription: %s\n---\n# Notes\n";
        assertThat(send(alice, "PUT", "/api/skills/cold-brew", Json.write(Json.object().put("content", skill.formatted("cold-brew",
                "Alice's cold brew."))))).extracting(HttpResponse::statusCode).isEqualTo(201);
        assertThat(send(bob, "GET", "/api/skills/cold-brew", null).statusCode()).as("Alice's own skill").isEqualTo(404);
        assertThat(send(bob, "GET", "/api/skills/cold-brew/versions", null).statusCode()).isEqualTo(404);
        assertThat(send(bob, "DELETE", "/api/skills/cold-brew", null).statusCode()).isEqualTo(404);
        assertThat(send(alice, "GET", "/api/skills/cold-brew", null).statusCode()).as("still hers").isEqualTo(200);

        assertThat(send(bob, "PUT", "/api/skills/tea", Json.write(Json.object().put("content", skill.formatted("tea", "Bob's tea.")))).statusCode())
                .isEqualTo(201);
        assertThat(send(bob, "POST", "/api/skills/tea/publish", null).statusCode()).as("not an admin").isEqualTo(403);
        HttpResponse<String> published = send(alice, "POST", "/api/skills/cold-brew/publish", null);
        assertThat(published.statusCode()).as(published.body()).isBetween(200, 201);
        JsonNode bobsSkills = Json.parse(sendWithToken(bob, "GET", "/api/skills", null).body());
        assertThat(bobsSkills.toString()).as("the team library, which everyone reads").contains("cold-brew").contains("\"team\"");
        assertThat(send(bob, "GET", "/api/skills/cold-brew", null).statusCode()).isEqualTo(200);
    }

    @Test
    @Order(7)
    void aDisabledPersonAndARevokedTokenStopAtOnceOnEveryInstance() throws Exception {
        String bobId = Json.parse(send(bob, "GET", "/api/me", null).body()).path("id").asText();
        HttpResponse<String> disabled = send(alice, "PATCH", "/api/admin/users/" + bobId, "{\"disabled\":true}");
        assertThat(disabled.statusCode()).as(disabled.body()).isEqualTo(200);
        for (ServerHarness instance : List.of(aliceInstance(), bobInstance())) {
            assertThat(send(instance, "GET", "/api/conversations", null, "Cookie", "forge_session=" + bob.cookie()).statusCode()).isEqualTo(401);
            assertThat(send(instance, "GET", "/api/conversations", null, "Authorization", "Bearer " + bob.token()).statusCode()).isEqualTo(401);
            assertThat(McpCalls.status(instance, "Bearer " + bob.token())).isEqualTo(401);
        }
        assertThat(send(alice, "PATCH", "/api/admin/users/" + bobId, "{\"disabled\":false}").statusCode()).isEqualTo(200);
        assertThat(sendWithToken(bob, "GET", "/api/conversations", null).statusCode()).as("his token works again").isEqualTo(200);
        assertThat(send(bob, "GET", "/api/conversations", null).statusCode()).as("a disable ended his sessions").isEqualTo(401);
        bob = new Person(BOB, bob.instance(), issuer.signIn(bob.instance().url(""), BOB, Map.of("email", "bob@example.org")), bob.token(),
                bob.tokenId());

        HttpResponse<String> another = send(bob, "POST", "/api/tokens", "{\"name\":\"to revoke\"}");
        JsonNode made = Json.parse(another.body());
        HttpResponse<String> revoked = send(bob.instance(), "DELETE", "/api/tokens/" + made.path("id").asText(), null,
                "Cookie", "forge_session=" + bob.cookie());
        assertThat(revoked.statusCode()).isEqualTo(204);
        for (ServerHarness instance : List.of(aliceInstance(), bobInstance())) {
            assertThat(send(instance, "GET", "/api/me", null, "Authorization", "Bearer " + made.path("token").asText()).statusCode())
                    .isEqualTo(401);
        }
        JsonNode tokens = Json.parse(send(bob, "GET", "/api/tokens", null).body());
        assertThat(tokens.path("tokens").findValuesAsText("name")).containsExactly("script of bob");
        assertThat(tokens.toString()).doesNotContain(bob.token()).doesNotContain("sf_pat_");
    }

    @Test
    @Order(8)
    void aSpentBudgetRefusesATurnBeforeAnyModelCall() throws Exception {
        String bobId = Json.parse(send(bob, "GET", "/api/me", null).body()).path("id").asText();
        String bobs = Json.parse(send(bob, "POST", "/api/conversations", "{}").body()).path("id").asText();
        responder.set(new SimScript(SimReply.of("That cost something.")));
        assertThat(send(bob, "POST", "/api/conversations/" + bobs + "/messages", "{\"content\":\"spend\"}").statusCode()).isEqualTo(200);
        JsonNode usage = Json.parse(send(bob, "GET", "/api/me/usage", null).body());
        assertThat(usage.path("spentUsd").decimalValue()).as(usage.toString()).isPositive();
        assertThat(usage.path("budgetUsd").isNull()).isTrue();

        assertThat(send(alice, "PATCH", "/api/admin/users/" + bobId, "{\"monthlyBudgetUsd\":0.000001}").statusCode()).isEqualTo(200);
        int modelCalls = bob.instance().sim.requests().size();
        HttpResponse<String> refused = send(bob, "POST", "/api/conversations/" + bobs + "/messages", "{\"content\":\"more\"}");
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(402);
        assertThat(Json.parse(refused.body()).path("error").path("code").asText()).isEqualTo("budget_spent");
        assertThat(Json.parse(refused.body()).path("error").path("message").asText()).contains("monthly budget of $0.00 is spent")
                .contains("Nothing was sent to the model");
        assertThat(bob.instance().sim.requests()).as("no model call").hasSize(modelCalls);
        JsonNode left = Json.parse(send(bob, "GET", "/api/me/usage", null).body());
        assertThat(left.path("leftUsd").decimalValue()).isZero();
        JsonNode mcp = McpCalls.chat(bob.instance(), "Bearer " + bob.token(), "more", bobs);
        assertThat(mcp.toString()).contains("monthly budget");

        assertThat(send(alice, "PATCH", "/api/admin/users/" + bobId, "{\"monthlyBudgetUsd\":null}").statusCode()).isEqualTo(200);
        assertThat(send(bob, "POST", "/api/conversations/" + bobs + "/messages", "{\"content\":\"more\"}").statusCode()).isEqualTo(200);
    }

    @Test
    @Order(9)
    void withoutACredentialTheApiAndMcpAnswer401AndSayWhereToSignIn() throws Exception {
        ServerHarness instance = aliceInstance();
        HttpResponse<String> api = send(instance, "GET", "/api/conversations", null);
        assertThat(api.statusCode()).isEqualTo(401);
        assertThat(Json.parse(api.body()).path("error").path("code").asText()).isEqualTo("unauthenticated");
        HttpResponse<String> page = send(instance, "GET", "/", null);
        assertThat(page.statusCode()).isEqualTo(302);
        assertThat(page.headers().firstValue("Location")).hasValue("/auth/login");
        HttpResponse<String> mcp = McpCalls.initialize(instance, null);
        assertThat(mcp.statusCode()).isEqualTo(401);
        String challenge = mcp.headers().firstValue("WWW-Authenticate").orElseThrow();
        String metadataUrl = instance.url("/.well-known/oauth-protected-resource/mcp");
        assertThat(challenge).isEqualTo("Bearer resource_metadata=\"" + metadataUrl + "\"");
        JsonNode metadata = Json.parse(send(instance, "GET", "/.well-known/oauth-protected-resource/mcp", null).body());
        assertThat(metadata.path("resource").asText()).isEqualTo(instance.url("/mcp"));
        assertThat(metadata.path("authorization_servers").get(0).asText()).isEqualTo(issuer.issuer());
        assertThat(send(instance, "GET", "/.well-known/oauth-protected-resource", null).statusCode()).isEqualTo(200);
    }

    @Test
    @Order(10)
    void mcpTakesTheIssuersAccessTokensForThisServerOnly() throws Exception {
        ServerHarness instance = aliceInstance();
        String resource = instance.url("/mcp");
        String forThisServer = issuer.accessToken("an-mcp-client", ALICE, Map.of("aud", List.of(resource), "email", "alice@example.org",
                "email_verified", true));
        responder.set(new SimScript(SimReply.of("Hello Alice over MCP.")));
        JsonNode chat = McpCalls.chat(instance, "Bearer " + forThisServer, "hello", null);
        assertThat(chat.path("result").path("isError").asBoolean()).as(chat.toString()).isFalse();
        String id = chat.path("result").path("structuredContent").path("continuation_id").asText();
        assertThat(send(alice, "GET", "/api/conversations/" + id, null).statusCode()).as("Alice's, as she signs in").isEqualTo(200);

        String forAnother = issuer.accessToken("an-mcp-client", ALICE, Map.of("aud", List.of("https://elsewhere.example/mcp")));
        HttpResponse<String> other = McpCalls.initialize(instance, "Bearer " + forAnother);
        assertThat(other.statusCode()).isEqualTo(401);
        assertThat(other.headers().firstValue("WWW-Authenticate").orElseThrow()).contains("error=\"invalid_token\"");
        String[] parts = forThisServer.split("\\.");
        String tampered = parts[0] + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(new String(Base64.getUrlDecoder()
                .decode(parts[1]), StandardCharsets.UTF_8).replace("\"alice\"", "\"mallory\"").getBytes(StandardCharsets.UTF_8)) + "." + parts[2];
        assertThat(McpCalls.initialize(instance, "Bearer " + tampered).statusCode()).isEqualTo(401);
        String unsigned = Base64.getUrlEncoder().withoutPadding().encodeToString("{\"alg\":\"none\"}".getBytes(StandardCharsets.UTF_8))
                + "." + parts[1] + ".";
        assertThat(McpCalls.initialize(instance, "Bearer " + unsigned).statusCode()).isEqualTo(401);
        assertThat(McpCalls.initialize(instance, "Bearer " + HexFormat.of().formatHex(new byte[16])).statusCode()).isEqualTo(401);
    }

    static JsonNode findUser(JsonNode people, String email) {
        for (JsonNode user : people.path("users")) {
            if (email.equals(user.path("email").asText())) {
                return user;
            }
        }
        throw new AssertionError(email + " is not among " + people);
    }

    static int freePort() throws IOException {
        return ServerProcess.freePort();
    }
}
