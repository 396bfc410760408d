package dev.skillforge.server.mcp;

import dev.skillforge.server.conversation.Conversations;
import dev.skillforge.server.conversation.Turns;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.skill.SkillAccess;
import dev.skillforge.server.skill.SkillStore;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpAsyncServerExchange;
import io.modelcontextprotocol.server.McpNotificationHandler;
import io.modelcontextprotocol.server.McpRequestHandler;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpServerSession;
import io.modelcontextprotocol.spec.McpStreamableServerSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * SkillForge as an MCP server (protocol revision 2025-11-25), whatever the transport: the tools
 * {@code chat}, {@code skill_list}, {@code skill_get}, {@code skill_set}, {@code skill_delete},
 * {@code skill_search} (always in this order), each skill as a resource {@code skill://NAME} and
 * each of its files as {@code skill://NAME/PATH} (sorted), the Skills extension
 * ({@code skills/list}, {@code skills/get}), progress notifications, and cancellation of a running
 * {@code chat}.
 *
 * <p>Built on the MCP Java SDK's sessions and transports, with its own handlers instead of the SDK's
 * {@code McpServer}: that server keeps resources registered ahead in a hash map (listed in hash
 * order, blind to skills made later), hands request handlers no request id, and has no handler for
 * {@code notifications/cancelled}. Here the resource list is read from the skill store on every
 * request and sorted, and {@link RequestIds} lets a call be found by the id a cancellation names.
 *
 * <p>Tool calls run on virtual threads; a {@link ToolError} or any failure inside a tool becomes a
 * result with {@code isError: true}, never a protocol error. {@link #streamableSessions} serves the
 * Streamable HTTP transport ({@link McpHttpDoor}), {@link #stdioSessions} the stdio one ({@link McpStdio}).
 */
public final class SkillForgeMcp implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SkillForgeMcp.class);

    /** How long a server-to-client request (none are sent today) may wait for its answer. */
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    private static final String INSTRUCTIONS = "SkillForge holds conversations with other models and keeps Agent Skills."
            + " Use chat to talk to one of its models: pass the continuation_id of the previous result to continue the same"
            + " stored conversation. The model can forge skills during a turn; skill_list, skill_get, skill_set, skill_delete and"
            + " skill_search manage them directly; each skill is a resource skill://NAME (its SKILL.md), each of its files"
            + " skill://NAME/PATH, and skills/list gives every skill with its files' digests (the MCP Skills extension).";
    private static final McpSchema.ServerCapabilities CAPABILITIES = McpSchema.ServerCapabilities.builder()
            .tools(false).resources(false, false).logging().extensions(SkillsExtension.capability()).build();

    private final McpJsonMapper json = new JacksonMcpJsonMapper(Json.MAPPER.copy());
    private final Map<String, McpTool> tools = new LinkedHashMap<>();
    private final List<McpSchema.Tool> definitions;
    private final SkillResources resources;
    private final SkillsExtension extension;
    private final RunningCalls calls = new RunningCalls();
    private final Scheduler work = Schedulers.fromExecutorService(Executors.newVirtualThreadPerTaskExecutor(), "mcp-calls");
    private final Map<String, McpRequestHandler<?>> requestHandlers;
    private final Map<String, McpNotificationHandler> notificationHandlers;

    /**
     * @param providers       the configured providers' names (for {@code chat}'s description)
     * @param defaultProvider the provider a new conversation uses when {@code chat} names none
     */
    public SkillForgeMcp(Conversations conversations, Turns turns, SkillStore skills, List<String> providers, String defaultProvider) {
        List<McpTool> all = new ArrayList<>();
        all.add(new ChatTool(conversations, turns, providers, defaultProvider));
        all.addAll(SkillTools.over(skills));
        all.forEach(tool -> tools.put(tool.name(), tool));
        this.definitions = all.stream().map(McpTool::definition).toList();
        this.resources = new SkillResources(skills);
        this.extension = new SkillsExtension(skills);
        McpRequestHandler<McpSchema.CallToolResult> callTool = this::callTool;
        McpRequestHandler<McpSchema.ListResourcesResult> listResources = (exchange, params) ->
                onStore(() -> resources.list(access(exchange)));
        McpRequestHandler<McpSchema.ReadResourceResult> readResource = (exchange, params) ->
                onStore(() -> resources.read(access(exchange), uriOf(params)));
        McpRequestHandler<Map<String, Object>> listSkills = (exchange, params) -> onStore(() -> extension.list(access(exchange)));
        McpRequestHandler<Map<String, Object>> getSkill = (exchange, params) ->
                onStore(() -> extension.get(access(exchange), skillUriOf(params)));
        this.requestHandlers = ProtocolErrors.guarded(Map.<String, McpRequestHandler<?>>ofEntries(
                Map.entry(McpSchema.METHOD_PING, (exchange, params) -> Mono.just(Map.of())),
                Map.entry(McpSchema.METHOD_TOOLS_LIST, (exchange, params) -> Mono.just(McpSchema.ListToolsResult.builder(definitions).build())),
                Map.entry(McpSchema.METHOD_TOOLS_CALL, callTool),
                Map.entry(McpSchema.METHOD_RESOURCES_LIST, listResources),
                Map.entry(McpSchema.METHOD_RESOURCES_READ, readResource),
                Map.entry(McpSchema.METHOD_RESOURCES_TEMPLATES_LIST, (exchange, params) -> Mono.just(resources.templates())),
                Map.entry(SkillsExtension.METHOD_LIST, listSkills),
                Map.entry(SkillsExtension.METHOD_GET, getSkill),
                // SkillForge sends no log messages over MCP; the level is accepted as the logging capability requires.
                Map.entry(McpSchema.METHOD_LOGGING_SET_LEVEL, (exchange, params) -> Mono.just(Map.of()))));
        McpNotificationHandler ignore = (exchange, params) -> Mono.empty();
        this.notificationHandlers = Map.of(
                McpSchema.METHOD_NOTIFICATION_INITIALIZED, ignore,
                McpSchema.METHOD_NOTIFICATION_ROOTS_LIST_CHANGED, ignore,
                "notifications/cancelled", this::cancelled);
    }

    /** The JSON mapper of the protocol messages. */
    public McpJsonMapper json() {
        return json;
    }

    /** Sessions of the Streamable HTTP transport, negotiating one of {@code protocolVersions} (oldest first), counted in {@code open}. */
    McpStreamableServerSession.Factory streamableSessions(List<String> protocolVersions, McpSessions open) {
        return init -> {
            String id = UUID.randomUUID().toString();
            return new McpStreamableServerSession.McpStreamableServerSessionInit(
                    new McpStreamableServerSession(id, init.capabilities(), init.clientInfo(), REQUEST_TIMEOUT, requestHandlers,
                            notificationHandlers, open.opened(id)),
                    Mono.fromSupplier(() -> initialized(init, protocolVersions)));
        };
    }

    /** The session of the stdio transport, negotiating one of {@code protocolVersions} (oldest first). */
    public McpServerSession.Factory stdioSessions(List<String> protocolVersions) {
        return transport -> new RequestIds.StdioSession(UUID.randomUUID().toString(), REQUEST_TIMEOUT, transport,
                init -> Mono.fromSupplier(() -> initialized(init, protocolVersions)), requestHandlers, notificationHandlers);
    }

    /** The client's protocol version if it is one of ours, else our newest (the client then decides whether to go on). */
    private static McpSchema.InitializeResult initialized(McpSchema.InitializeRequest init, List<String> protocolVersions) {
        String version = protocolVersions.contains(init.protocolVersion()) ? init.protocolVersion() : protocolVersions.getLast();
        log.info("MCP client {} {} connected (protocol {})", init.clientInfo() == null ? "(unnamed)" : init.clientInfo().name(),
                init.clientInfo() == null ? "" : init.clientInfo().version(), version);
        return McpSchema.InitializeResult.builder(version, CAPABILITIES,
                McpSchema.Implementation.builder("skillforge", version()).title("SkillForge").build()).instructions(INSTRUCTIONS).build();
    }

    private static String version() {
        String version = SkillForgeMcp.class.getPackage().getImplementationVersion();
        return version == null ? "development" : version;
    }

    private Mono<McpSchema.CallToolResult> callTool(McpAsyncServerExchange exchange, Object params) {
        return Mono.defer(() -> {
            McpSchema.CallToolRequest request;
            try {
                request = json.convertValue(params, McpSchema.CallToolRequest.class);
            } catch (IllegalArgumentException e) {
                return Mono.error(invalidParams("tools/call needs params {\"name\": …, \"arguments\": {…}}"));
            }
            McpTool tool = tools.get(request.name());
            if (tool == null) {
                return Mono.error(invalidParams("Unknown tool: " + request.name() + "; the tools are " + String.join(", ", tools.keySet())));
            }
            Object requestId = RequestIds.of(exchange);
            ToolCall call = new ToolCall(McpCallers.of(exchange), new ToolArguments(tool.name(), request.arguments()),
                    progress(exchange, request.progressToken()),
                    cancel -> requestId == null ? () -> { } : calls.register(exchange.sessionId(), requestId, cancel));
            return Mono.fromCallable(() -> run(tool, call)).subscribeOn(work);
        });
    }

    private static McpSchema.CallToolResult run(McpTool tool, ToolCall call) {
        try {
            return tool.call(call);
        } catch (ToolError e) {
            return ToolResults.error(e.getMessage());
        } catch (RuntimeException e) {
            log.error("MCP tool {} failed", tool.name(), e);
            return ToolResults.error("The tool failed inside the server (" + e.getClass().getSimpleName() + "); the server log has the details.");
        }
    }

    /** Progress notifications with a step count, to the request's own stream; nothing when the client sent no progress token. */
    private static Consumer<String> progress(McpAsyncServerExchange exchange, Object token) {
        if (token == null) {
            return message -> { };
        }
        AtomicInteger steps = new AtomicInteger();
        return message -> {
            try {
                exchange.progressNotification(new McpSchema.ProgressNotification(token, (double) steps.incrementAndGet(), null, message, null))
                        .block(REQUEST_TIMEOUT);
            } catch (RuntimeException e) {
                log.debug("a progress notification could not be sent: {}", e.toString()); // the client left; the turn goes on
            }
        };
    }

    private Mono<Void> cancelled(McpAsyncServerExchange exchange, Object params) {
        return Mono.fromRunnable(() -> {
            if (params instanceof Map<?, ?> fields && fields.get("requestId") != null
                    && calls.cancel(exchange.sessionId(), fields.get("requestId"))) {
                log.info("MCP client cancelled request {} ({})", fields.get("requestId"), fields.get("reason"));
            }
        });
    }

    /** Who an MCP request reads and writes skills for. */
    private static SkillAccess access(McpAsyncServerExchange exchange) {
        return SkillResources.access(McpCallers.of(exchange));
    }

    /**
     * A read of the skill store on a call thread; a failure of the store is an internal error that says only that (the
     * log has the detail), and a protocol error stays one.
     */
    private <T> Mono<T> onStore(java.util.concurrent.Callable<T> read) {
        return Mono.fromCallable(() -> {
            try {
                return read.call();
            } catch (McpError e) {
                throw e;
            } catch (RuntimeException e) {
                log.warn("MCP: the skill store failed", e);
                throw McpError.builder(McpSchema.ErrorCodes.INTERNAL_ERROR).message("The skill store could not be read; try again").build();
            }
        }).subscribeOn(work);
    }

    private String skillUriOf(Object params) {
        if (params instanceof Map<?, ?> fields && fields.get("uri") instanceof String uri) {
            return uri;
        }
        throw invalidParams("skills/get needs params {\"uri\": \"skill://NAME/SKILL.md\"}");
    }

    private String uriOf(Object params) {
        try {
            return json.convertValue(params, McpSchema.ReadResourceRequest.class).uri();
        } catch (IllegalArgumentException e) {
            throw invalidParams("resources/read needs params {\"uri\": \"skill://NAME\"}");
        }
    }

    private static McpError invalidParams(String message) {
        return McpError.builder(McpSchema.ErrorCodes.INVALID_PARAMS).message(message).build();
    }

    /** Stops the turns that MCP calls are waiting for (as a server shutdown does) and the calls' threads. */
    @Override
    public void close() {
        calls.cancelAll();
        work.dispose();
    }
}
