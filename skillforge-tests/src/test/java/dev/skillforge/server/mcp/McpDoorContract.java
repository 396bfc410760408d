package dev.skillforge.server.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.skillforge.testkit.BinaryHttp;
import dev.skillforge.testkit.SseClient;
import dev.skillforge.testkit.TestDocuments;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.provider.sim.SimProviderServer;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.server.provider.sim.SimRequest;
import dev.skillforge.server.provider.sim.SimResponder;
import dev.skillforge.testkit.SimScript;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What SkillForge's MCP server does, whatever carries it: each transport's test extends this suite
 * (the MCP SDK's own pattern) and supplies the server, a client transport to it, and the HTTP API on
 * the same data. One SDK client per class; the simulated provider answers what each test scripts.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class McpDoorContract {

    static final List<String> TOOLS = List.of("chat", "skill_list", "skill_get", "skill_set", "skill_delete", "skill_search");
    /** Long enough that the prompt passes OpenAI's 1,024-token cache minimum, so the second call has cached tokens. */
    static final String LONG_QUESTION = "Tell me what you know about cold brew. " + "Coffee notes: grind coarse, steep cold. ".repeat(150);

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Pattern CONTINUATION_ID = Pattern.compile("continuation_id ([0-9a-f-]{36})");

    private final AtomicReference<SimScript> script = new AtomicReference<>(new SimScript());
    /** What the simulated provider answers: the current test's script. */
    protected final SimResponder responder = messages -> script.get().reply(messages);
    private final List<McpSchema.ProgressNotification> progress = new CopyOnWriteArrayList<>();
    private RecordingTransport transport;
    private McpSyncClient client;

    /** Starts the server (and its simulated provider, which answers with {@link #responder}). */
    protected abstract void startServer() throws Exception;

    protected abstract void stopServer() throws Exception;

    /** A client transport to the server under test. */
    protected abstract McpClientTransport clientTransport();

    protected abstract SimProviderServer sim();

    /** A URL of the HTTP API on the same data: the server itself, or another process on the same data folder. */
    protected abstract String apiUrl(String path);

    /** The provider a conversation gets when {@code chat} names none. */
    protected abstract String defaultProvider();

    /** The configured providers' names, as an error lists them. */
    protected abstract String configuredProviders();

    @BeforeAll
    final void connect() throws Exception {
        startServer();
        transport = new RecordingTransport(clientTransport());
        client = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(60)).initializationTimeout(Duration.ofSeconds(60))
                .progressConsumer(progress::add).build();
        client.initialize();
    }

    @AfterAll
    final void disconnect() throws Exception {
        try {
            client.closeGracefully();
        } finally {
            stopServer();
        }
    }

    @BeforeEach
    final void clearProgress() {
        progress.clear();
    }

    @Test
    void listsTheToolsInTheirFixedOrderAndEachSkillAsAResourceSortedByName() throws Exception {
        List<McpSchema.Tool> tools = client.listTools().tools();
        assertThat(tools).extracting(McpSchema.Tool::name).containsExactlyElementsOf(TOOLS);
        assertThat(tools).allSatisfy(tool -> {
            assertThat(tool.description()).isNotBlank();
            assertThat(tool.inputSchema()).containsEntry("type", "object").containsEntry("additionalProperties", false);
            assertThat(tool.outputSchema()).containsEntry("type", "object");
        });
        assertThat(client.listTools().tools()).as("the same list, in the same order, every time").isEqualTo(tools);

        String first = "mcp-contract-aa";
        String last = "mcp-contract-zz";
        assertThat(call("skill_set", Map.of("name", last, "content", skill(last))).isError()).isFalse();
        McpSchema.CallToolResult saved = call("skill_set", Map.of("name", first, "content", skill(first)));
        assertThat(structured(saved)).containsEntry("outcome", "created").containsEntry("uri", "skill://" + first);

        List<String> uris = client.listResources().resources().stream().map(McpSchema.Resource::uri).toList();
        assertThat(uris).isSorted().contains("skill://" + first, "skill://" + last);
        McpSchema.Resource resource = client.listResources().resources().stream().filter(r -> r.uri().equals("skill://" + first)).findFirst().orElseThrow();
        assertThat(resource.name()).isEqualTo(first);
        assertThat(resource.description()).isEqualTo("The " + first + " test skill.");
        assertThat(resource.mimeType()).isEqualTo("text/markdown");

        McpSchema.ReadResourceResult read = client.readResource(McpSchema.ReadResourceRequest.builder("skill://" + first).build());
        assertThat(read.contents()).singleElement().isInstanceOfSatisfying(McpSchema.TextResourceContents.class, text -> {
            assertThat(text.text()).isEqualTo(skill(first));
            assertThat(text.mimeType()).isEqualTo("text/markdown");
        });
        assertThat(client.listResourceTemplates().resourceTemplates()).extracting(McpSchema.ResourceTemplate::uriTemplate)
                .containsExactly("skill://{name}", "skill://{name}/{+path}");
        assertThatThrownBy(() -> client.readResource(McpSchema.ReadResourceRequest.builder("skill://no-such-skill").build()))
                .isInstanceOfSatisfying(McpError.class, e -> assertThat(e.getJsonRpcError().code()).isEqualTo(McpSchema.ErrorCodes.RESOURCE_NOT_FOUND));

        // The same store the page reads, and the model's skill commands write.
        assertThat(SseClient.get(apiUrl("/api/skills/" + first)).json().path("content").asText()).isEqualTo(skill(first));
        assertThat(structured(call("skill_get", Map.of("name", first)))).containsEntry("content", skill(first));
        assertThat(structured(call("skill_search", Map.of("query", "MCP-CONTRACT-ZZ test")))).extracting(s -> s.get("skills"))
                .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.LIST).singleElement()
                .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP).containsEntry("name", last);
        assertThat(structured(call("skill_delete", Map.of("name", first)))).containsEntry("deleted", true);
        assertThat(call("skill_delete", Map.of("name", last)).isError()).isFalse();
        assertThat(client.listResources().resources()).extracting(McpSchema.Resource::uri).doesNotContain("skill://" + first, "skill://" + last);
    }

    @Test
    void everyFileOfASkillIsAResourceAndSkillGetReadsAnyOfThem() throws Exception {
        String name = "mcp-contract-files";
        byte[] png = {(byte) 0x89, 'P', 'N', 'G', 0, 1, 2, (byte) 0xff};
        assertThat(call("skill_set", Map.of("name", name, "content", skill(name))).isError()).isFalse();
        String files = apiUrl("/api/skills/" + name + "/files/");
        assertThat(BinaryHttp.send("PUT", files + "scripts/run.py", "application/octet-stream", "print('run')\n".getBytes()).status())
                .isEqualTo(200);
        assertThat(BinaryHttp.send("PUT", files + "assets/logo.png", "application/octet-stream", png).status()).isEqualTo(200);

        assertThat(client.getServerCapabilities().extensions()).containsKey("io.modelcontextprotocol/skills");
        List<McpSchema.Resource> resources = client.listResources().resources();
        assertThat(resources).extracting(McpSchema.Resource::uri).isSorted()
                .contains("skill://" + name, "skill://" + name + "/scripts/run.py", "skill://" + name + "/assets/logo.png");
        assertThat(resources).filteredOn(r -> r.uri().endsWith("/scripts/run.py")).singleElement()
                .satisfies(r -> assertThat(r.mimeType()).isEqualTo("text/x-python"));

        assertThat(client.readResource(McpSchema.ReadResourceRequest.builder("skill://" + name + "/scripts/run.py").build()).contents())
                .singleElement().isInstanceOfSatisfying(McpSchema.TextResourceContents.class, text -> assertThat(text.text()).isEqualTo("print('run')\n"));
        assertThat(client.readResource(McpSchema.ReadResourceRequest.builder("skill://" + name + "/assets/logo.png").build()).contents())
                .singleElement().isInstanceOfSatisfying(McpSchema.BlobResourceContents.class,
                        blob -> assertThat(Base64.getDecoder().decode(blob.blob())).isEqualTo(png));
        assertThat(client.readResource(McpSchema.ReadResourceRequest.builder("skill://" + name + "/SKILL.md").build()).contents())
                .singleElement().isInstanceOfSatisfying(McpSchema.TextResourceContents.class, text -> assertThat(text.text()).isEqualTo(skill(name)));
        for (String hostile : List.of("skill://" + name + "/../../etc/passwd", "skill://" + name + "/README.md", "skill://" + name + "/scripts/none.py")) {
            assertThatThrownBy(() -> client.readResource(McpSchema.ReadResourceRequest.builder(hostile).build())).as(hostile)
                    .isInstanceOfSatisfying(McpError.class, e -> assertThat(e.getJsonRpcError().code()).isEqualTo(McpSchema.ErrorCodes.RESOURCE_NOT_FOUND));
        }

        Map<String, Object> script = structured(call("skill_get", Map.of("name", name, "path", "scripts/run.py")));
        assertThat(script).containsEntry("content", "print('run')\n").containsEntry("path", "scripts/run.py").containsEntry("version", 3);
        assertThat(script.get("files")).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.LIST).hasSize(3);
        assertThat(text(call("skill_get", Map.of("name", name, "path", "assets/logo.png")))).contains("is not text (8 bytes)",
                "skill://" + name + "/assets/logo.png");
        assertThat(text(call("skill_get", Map.of("name", name, "path", "../x")))).contains("has a .. part");
        assertThat(call("skill_delete", Map.of("name", name)).isError()).isFalse();
    }

    @Test
    void chatTwiceByContinuationIdExtendsTheProvidersLastRequestByteForByte() throws Exception {
        script(SimReply.of("Let me check. <shell>skill ", "list</shell>"), SimReply.of("You have ", "no skills yet."),
                SimReply.of("Going on: ", "cold brew needs 16 hours."));

        McpSchema.CallToolResult first = chat(Map.of("prompt", LONG_QUESTION));
        Map<String, Object> one = structured(first);
        String id = (String) one.get("continuation_id");
        assertThat(UUID.fromString(id).toString()).isEqualTo(id);
        assertThat(one).containsEntry("answer", "You have no skills yet.").containsEntry("provider", defaultProvider())
                .containsEntry("model", SimProviderServer.MODEL).containsEntry("stop_reason", "complete").containsEntry("iterations", 2);
        assertThat(one.get("commands")).isEqualTo(List.of(Map.of("id", "cmd-0-0", "command", "skill list", "exit_code", 0)));
        assertThat(text(first)).startsWith("You have no skills yet.").contains("continuation_id: " + id);
        assertThat(progress).as("no progress token, no progress notifications").isEmpty();

        McpSchema.CallToolResult second = chat(Map.of("prompt", "Go on.", "continuation_id", id));
        Map<String, Object> two = structured(second);
        assertThat(two).containsEntry("continuation_id", id).containsEntry("answer", "Going on: cold brew needs 16 hours.")
                .containsEntry("iterations", 1).containsEntry("commands", List.of());

        List<SimRequest> requests = requestsOf(id);
        assertThat(requests).hasSize(3);
        assertEachExtendsThePrevious(requests);
        assertThat(requests.get(2).cachedTokens()).isGreaterThanOrEqualTo(1024);
        assertThat(usage(two, "cached_tokens")).isEqualTo(requests.get(2).cachedTokens());
        assertThat(usage(one, "input_tokens")).isEqualTo(requests.get(0).promptTokens() + requests.get(1).promptTokens());
        assertThat(usage(one, "cached_tokens")).isEqualTo(requests.get(0).cachedTokens() + requests.get(1).cachedTokens());

        JsonNode conversation = apiJson("/api/conversations/" + id,
                json -> json.path("entries").size() == 6 && json.path("turns").path(1).has("stopReason"));
        assertThat(conversation.path("provider").asText()).isEqualTo(defaultProvider());
        assertThat(conversation.path("turns")).hasSize(2).allSatisfy(turn -> assertThat(turn.path("status").asText()).isEqualTo("complete"));
        assertThat(contents(conversation)).containsExactly(LONG_QUESTION, "Let me check. <shell>skill list</shell>",
                "$ skill list\nNo skills yet. Create one with skill set NAME (see skill help).", "You have no skills yet.",
                "Go on.", "Going on: cold brew needs 16 hours.");
    }

    @Test
    void chatTakesAttachmentsTheModelReadsAndThePageLists() throws Exception {
        script(SimReply.of("Read it."), SimReply.of("Still have it."));
        byte[] pdf = TestDocuments.pdf("Steep for 16 hours.");
        Map<String, Object> attachment = Map.of("name", "brew.pdf", "mediaType", "application/pdf",
                "data", Base64.getEncoder().encodeToString(pdf));

        String id = (String) structured(chat(Map.of("prompt", "Make a skill of this", "attachments", List.of(attachment))))
                .get("continuation_id");
        structured(chat(Map.of("prompt", "Go on.", "continuation_id", id)));

        List<SimRequest> requests = requestsOf(id);
        assertThat(requests.getFirst().messages().get(1).path("content").asText()).isEqualTo(
                "<document name=\"brew.pdf\" type=\"application/pdf\">\nSteep for 16 hours.\n</document>\n\nMake a skill of this");
        assertEachExtendsThePrevious(requests);
        JsonNode conversation = apiJson("/api/conversations/" + id, json -> json.path("entries").size() == 4);
        assertThat(conversation.path("entries").get(0).path("attachments").get(0).path("size").asLong()).isEqualTo(pdf.length);
    }

    @Test
    void chatTakesAnImageTheModelSeesAsTheSameBytesOnEveryRequest() throws Exception {
        script(SimReply.of("A chart."), SimReply.of("Still the chart."));
        byte[] png = dev.skillforge.testkit.TestImages.png(40, 30);
        Map<String, Object> attachment = Map.of("name", "chart.png", "mediaType", "image/png", "data", Base64.getEncoder().encodeToString(png));

        String id = (String) structured(chat(Map.of("prompt", "What is this?", "attachments", List.of(attachment)))).get("continuation_id");
        structured(chat(Map.of("prompt", "Go on.", "continuation_id", id)));

        List<SimRequest> requests = requestsOf(id);
        assertThat(requests.getFirst().messages().get(1).path("content").get(0).path("image_url").path("url").asText())
                .isEqualTo("data:image/png;base64," + Base64.getEncoder().encodeToString(png));
        assertEachExtendsThePrevious(requests);
        JsonNode conversation = apiJson("/api/conversations/" + id, json -> json.path("entries").size() == 4);
        assertThat(conversation.path("entries").get(0).path("attachments").get(0).path("width").asInt()).isEqualTo(40);
    }

    @Test
    void aConversationGoesOnOnThePageAndAgainOverMcpWithOneHistory() throws Exception {
        script(SimReply.of("Started."), SimReply.of("On the page."), SimReply.of("Back over MCP."));
        String id = (String) structured(chat(Map.of("prompt", LONG_QUESTION))).get("continuation_id");

        List<SseClient.Event> page = SseClient.postForEvents(apiUrl("/api/conversations/" + id + "/messages"),
                Json.write(Json.object().put("content", "And on the page?")));
        assertThat(page.getLast().text("stopReason")).isEqualTo("complete");

        Map<String, Object> again = structured(chat(Map.of("prompt", "And over MCP again?", "continuation_id", id)));
        assertThat(again).containsEntry("answer", "Back over MCP.");
        List<SimRequest> requests = requestsOf(id);
        assertThat(requests).hasSize(3);
        assertEachExtendsThePrevious(requests);
        assertThat(contents(apiJson("/api/conversations/" + id, json -> json.path("entries").size() == 6))).containsExactly(LONG_QUESTION, "Started.",
                "And on the page?", "On the page.", "And over MCP again?", "Back over MCP.");
    }

    @Test
    void reportsProgressPerCommandAndPerIterationWhenAskedTo() throws Exception {
        script(SimReply.of("<shell>skill list</shell> and <shell>skill search coffee</shell>"), SimReply.of("Nothing on coffee yet."));
        McpSchema.CallToolResult result = client.callTool(McpSchema.CallToolRequest.builder("chat")
                .arguments(Map.of("prompt", "What do I know about coffee?")).progressToken("coffee-progress").build());
        assertThat(result.isError()).isFalse();

        await(() -> progress.size() >= 4, "four progress notifications");
        assertThat(progress).allSatisfy(p -> assertThat(p.progressToken()).isEqualTo("coffee-progress"));
        // The SDK's client may hand notifications to the consumer out of order; their progress values say the order.
        List<McpSchema.ProgressNotification> inOrder = progress.stream()
                .sorted(Comparator.comparing(McpSchema.ProgressNotification::progress)).toList();
        assertThat(inOrder).extracting(McpSchema.ProgressNotification::progress).containsExactly(1.0, 2.0, 3.0, 4.0);
        assertThat(inOrder).extracting(McpSchema.ProgressNotification::message).containsExactly(
                "cmd-0-0 `skill list` exited 0",
                "cmd-0-1 `skill search coffee` exited 0",
                "iteration 1 done: its commands ran, the model is asked again",
                "iteration 2 done");
    }

    @Test
    void whileATurnRunsAnotherCallIsBusyAndACancellationStopsTheTurnAsStopDoes() throws Exception {
        script(SimReply.of("Ready."), SimReply.of("Thinking about it").withFault(new SimReply.Stall(1)));
        String id = (String) structured(chat(Map.of("prompt", "Get ready."))).get("continuation_id");
        int abortsBefore = sim().aborts();

        // On a thread of its own: the SDK client handles responses on the common pool, which a blocked call would hold.
        CompletableFuture<McpSchema.CallToolResult> stalled = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> stalled.complete(chat(Map.of("prompt", "Think long.", "continuation_id", id))));
        await(() -> requestsOf(id).size() == 2, "the second turn's model call to be under way");
        Object stalledRequest = transport.lastRequestId("tools/call");

        McpSchema.CallToolResult busy = chat(Map.of("prompt", "Are you there?", "continuation_id", id));
        assertThat(busy.isError()).isTrue();
        assertThat(text(busy)).startsWith("A turn of this conversation is running").contains(id);

        transport.cancel(stalledRequest);
        McpSchema.CallToolResult cancelled = stalled.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(structured(cancelled)).containsEntry("stop_reason", "cancelled").containsEntry("continuation_id", id);
        await(() -> sim().aborts() > abortsBefore, "the provider call to be aborted");
        JsonNode turns = apiJson("/api/conversations/" + id, json -> json.path("turns").path(1).has("stopReason")).path("turns");
        assertThat(turns.get(1).path("status").asText()).isEqualTo("cancelled");
        assertThat(turns.get(1).path("stopReason").asText()).isEqualTo("cancelled");
    }

    @Test
    void anUnknownConversationAnUnconfiguredProviderAndWrongArgumentsAreToolErrorsThatSayWhatToDo() throws Exception {
        long conversationsBefore = SseClient.get(apiUrl("/api/conversations")).json().path("total").asLong();
        String unknown = UUID.randomUUID().toString();

        assertToolError(chat(Map.of("prompt", "hi", "continuation_id", unknown)), "No conversation with id " + unknown
                + ": continuation_id must be one that chat returned; leave it out to start a new conversation");
        assertToolError(chat(Map.of("prompt", "hi", "continuation_id", "not-an-id")), "No conversation with id not-an-id"
                + ": continuation_id must be one that chat returned; leave it out to start a new conversation");
        assertToolError(chat(Map.of("prompt", "hi", "provider", "nope")), "No provider is named nope; configured: " + configuredProviders());
        assertToolError(chat(Map.of()), "chat needs the argument 'prompt' (a string)");
        assertToolError(chat(Map.of("prompt", "  ")), "'prompt' is empty: chat needs some text in it");
        assertToolError(chat(Map.of("prompt", 5)), "'prompt' must be a string, not a number");
        assertToolError(chat(Map.of("prompt", "hi", "colour", "blue")),
                "chat has no argument 'colour'; it takes prompt, continuation_id, provider, attachments");
        assertToolError(chat(Map.of("prompt", "hi", "attachments", List.of(Map.of("name", "a.txt", "data", "%%%")))),
                "attachments[0].data is not valid base64: it holds '%' at index 0 (standard base64 uses A-Z, a-z, 0-9, + and /, padded with =)");
        assertToolError(chat(Map.of("prompt", "hi", "attachments", List.of(Map.of("name", "../a.txt", "data", "aGk=")))),
                "The attachment name '../a.txt' is a path; send the file's name only");
        assertToolError(chat(Map.of("prompt", "nul \u0000 inside")), "'prompt' holds U+0000 at index 4, which cannot be stored");

        assertThat(SseClient.get(apiUrl("/api/conversations")).json().path("total").asLong()).as("no conversation was made for them")
                .isEqualTo(conversationsBefore);
        assertThatThrownBy(() -> call("draw", Map.of())).isInstanceOfSatisfying(McpError.class,
                e -> assertThat(e.getJsonRpcError().code()).isEqualTo(McpSchema.ErrorCodes.INVALID_PARAMS));
    }

    @Test
    void aProviderFailureIsAToolErrorAndTheConversationGoesOnAfterIt() throws Exception {
        script(SimReply.of().withFault(new SimReply.HttpError(400, "the simulated model refused this request", null)),
                SimReply.of("Recovered."));
        McpSchema.CallToolResult failed = chat(Map.of("prompt", "Try this."));
        assertThat(failed.isError()).isTrue();
        assertThat(text(failed)).startsWith("The turn failed: ").contains("the simulated model refused this request");
        Matcher id = CONTINUATION_ID.matcher(text(failed));
        assertThat(id.find()).as("the error names the conversation to go on with: %s", text(failed)).isTrue();

        Map<String, Object> after = structured(chat(Map.of("prompt", "Try again.", "continuation_id", id.group(1))));
        assertThat(after).containsEntry("answer", "Recovered.");
        JsonNode turns = apiJson("/api/conversations/" + id.group(1), json -> json.path("turns").path(1).has("stopReason")).path("turns");
        assertThat(turns).extracting(turn -> turn.path("status").asText()).containsExactly("failed", "complete");
    }

    @Test
    void aConversationKeepsItsProvider() throws Exception {
        script(SimReply.of("Hello."));
        String id = (String) structured(chat(Map.of("prompt", "Hello?"))).get("continuation_id");
        McpSchema.CallToolResult moved = chat(Map.of("prompt", "Now elsewhere.", "continuation_id", id, "provider", "elsewhere"));
        assertToolError(moved, "Conversation " + id + " runs on provider " + defaultProvider() + " (model " + SimProviderServer.MODEL
                + ") for its whole life, so that the provider's prompt cache keeps working; to talk to elsewhere, start a new"
                + " conversation: call chat without continuation_id.");
    }

    @Test
    void skillToolsRefuseWhatTheSkillCommandsRefuse() {
        assertThat(text(call("skill_set", Map.of("name", "Bad Name", "content", skill("bad-name"))))).contains("is not allowed")
                .contains("lowercase letters a-z");
        McpSchema.CallToolResult noFrontMatter = call("skill_set", Map.of("name", "no-front-matter", "content", "# Just a title\n"));
        assertThat(noFrontMatter.isError()).isTrue();
        assertThat(text(call("skill_set", Map.of("name", "one-name", "content", skill("other-name")))))
                .contains("the front matter field name is");
        assertToolError(call("skill_get", Map.of("name", "no-such-skill")), "There is no skill named no-such-skill. skill_list shows the skills.");
        assertToolError(call("skill_delete", Map.of("name", "no-such-skill")), "There is no skill named no-such-skill. skill_list shows the skills.");
        assertToolError(call("skill_search", Map.of("query", " ")), "'query' is empty: skill_search needs some text in it");
        assertToolError(call("skill_list", Map.of("all", true)), "skill_list has no argument 'all'; it takes none");
        assertThat(client.listResources().resources()).extracting(McpSchema.Resource::uri).doesNotContain("skill://no-front-matter", "skill://one-name");
    }

    // --- helpers -----------------------------------------------------------------------------------------------

    /** The simulated provider answers these, in order, from now on. */
    protected final void script(SimReply... replies) {
        script.set(new SimScript(replies));
    }

    protected final McpSchema.CallToolResult chat(Map<String, Object> arguments) {
        return call("chat", arguments);
    }

    protected final McpSchema.CallToolResult call(String tool, Map<String, Object> arguments) {
        return client.callTool(McpSchema.CallToolRequest.builder(tool).arguments(new HashMap<>(arguments)).build());
    }

    protected final McpSyncClient client() {
        return client;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> structured(McpSchema.CallToolResult result) {
        assertThat(result.isError()).as("an error: %s", result.content()).isFalse();
        return (Map<String, Object>) result.structuredContent();
    }

    /** A usage figure of a {@code chat} result. */
    static long usage(Map<String, Object> chat, String figure) {
        return ((Number) ((Map<?, ?>) chat.get("usage")).get(figure)).longValue();
    }

    static String text(McpSchema.CallToolResult result) {
        return ((McpSchema.TextContent) result.content().getFirst()).text();
    }

    static void assertToolError(McpSchema.CallToolResult result, String message) {
        assertThat(result.isError()).as("an error result: %s", result.content()).isTrue();
        assertThat(result.structuredContent()).isNull();
        assertThat(text(result)).isEqualTo(message);
    }

    static String skill(String name) {
        return "---\nname: " + name + "\ndescription: The " + name + " test skill.\n---\n# " + name + "\nSteep coarse grounds in cold water.\n";
    }

    /** The provider's requests of one conversation (its prompt-cache key is the conversation's id), in order. */
    final List<SimRequest> requestsOf(String conversationId) {
        return sim().requests().stream().filter(request -> conversationId.equals(request.cacheKey())).toList();
    }

    /** Each request's bytes start with the previous request's messages, byte for byte: the provider's prompt cache can hit. */
    static void assertEachExtendsThePrevious(List<SimRequest> requests) {
        for (int i = 0; i + 1 < requests.size(); i++) {
            String previous = requests.get(i).body();
            int end = previous.indexOf("],\"stream\":true");
            assertThat(end).as("messages are followed by the stream flag").isPositive();
            assertThat(requests.get(i + 1).body()).as("request %d extends request %d", i + 1, i).startsWith(previous.substring(0, end) + ",");
        }
    }

    /**
     * A GET of the HTTP API, repeated until {@code until} holds (or the wait ends, and the last answer is
     * returned for the test to show): when the API is another process, what this one wrote reaches the
     * store a moment after its MCP answer.
     */
    final JsonNode apiJson(String path, Predicate<JsonNode> until) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            JsonNode json = SseClient.get(apiUrl(path)).json();
            if (until.test(json) || System.nanoTime() > deadline) {
                return json;
            }
            Thread.sleep(20);
        }
    }

    static List<String> contents(JsonNode conversation) {
        return ((ArrayNode) conversation.path("entries")).valueStream().map(entry -> entry.path("content").asText()).toList();
    }

    static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(20);
        }
    }
}
