package dev.skillforge.server.mcp;

import dev.skillforge.core.agent.AgentEvent;
import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.transcript.StorableText;
import dev.skillforge.server.conversation.ConversationException;
import dev.skillforge.server.conversation.Conversations;
import dev.skillforge.server.conversation.Turns;
import dev.skillforge.server.document.AttachedDocument;
import dev.skillforge.server.document.DocumentException;
import dev.skillforge.server.document.Documents;
import dev.skillforge.server.document.UploadsJson;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.people.Caller;
import dev.skillforge.server.run.AgentRun;
import dev.skillforge.server.run.RunEventLog;
import dev.skillforge.server.store.ConversationRecord;
import io.modelcontextprotocol.spec.McpSchema;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * {@code chat}: one SkillForge turn on a stored conversation, the seeds' {@code continuation_id}
 * door. Without a {@code continuation_id} it starts a conversation (on {@code provider}, or the
 * default), as {@code POST /api/conversations} does; with one it continues that conversation, as
 * {@code POST /api/conversations/{id}/messages} does: the same {@link Conversations} and {@link Turns}, so the
 * same store, history, lease and prompt-cache invariant as the page and the HTTP API. The call
 * returns when the turn has ended; the turn belongs to the server and is stored even if the client
 * goes away. A cancellation of the call stops the turn as {@code POST …/stop} does.
 */
final class ChatTool implements McpTool {

    static final String NAME = "chat";
    private static final List<String> ARGUMENTS = List.of("prompt", "continuation_id", "provider", "attachments");
    /** How long one wait for the turn's next event lasts before looking again (only bounds a wait; no timing depends on it). */
    private static final Duration FOLLOW_WAIT = Duration.ofSeconds(1);

    private static final String OUTPUT_SCHEMA = """
            {"type": "object",
             "properties": {
               "answer": {"type": "string", "description": "The model's final answer: its last output of the turn, exactly as stored"},
               "continuation_id": {"type": "string", "description": "The conversation's id: pass it to chat to continue"},
               "provider": {"type": "string", "description": "The provider the conversation is fixed to"},
               "model": {"type": "string"},
               "stop_reason": {"type": "string", "enum": ["complete", "max-iterations", "cancelled"]},
               "iterations": {"type": "integer", "description": "Model calls in this turn"},
               "commands": {"type": "array", "description": "The <shell> commands the model ran, in order",
                 "items": {"type": "object",
                   "properties": {"id": {"type": "string"}, "command": {"type": "string"}, "exit_code": {"type": "integer"}},
                   "required": ["id", "command", "exit_code"]}},
               "usage": {"type": "object", "description": "Token totals of the turn; a figure the provider did not report is left out",
                 "properties": {
                   "input_tokens": {"type": "integer"},
                   "output_tokens": {"type": "integer"},
                   "cached_tokens": {"type": "integer", "description": "Input tokens served from the provider's prompt cache"}}}},
             "required": ["answer", "continuation_id", "provider", "model", "stop_reason", "iterations", "commands", "usage"]}""";

    private final Conversations conversations;
    private final Turns turns;
    private final McpSchema.Tool definition;

    /**
     * @param providers       the configured providers' names, for the tool's description
     * @param defaultProvider the one new conversations use when the call names none
     */
    ChatTool(Conversations conversations, Turns turns, List<String> providers, String defaultProvider) {
        this.conversations = conversations;
        this.turns = turns;
        String input = """
                {"type": "object",
                 "properties": {
                   "prompt": {"type": "string", "minLength": 1, "description": "The message to send: a question, an instruction, 'go on'…"},
                   "continuation_id": {"type": "string", "description": "The continuation_id an earlier chat result returned, to continue that conversation; leave it out to start a new one"},
                   "provider": {"type": "string", "description": "For a new conversation: the configured provider to talk to (%s; default %s). A conversation keeps its provider for life"},
                   "attachments": {"type": "array", "maxItems": 10, "description": "Documents and images to attach to the message (text, Markdown, source code, HTML, PDF; PNG, JPEG, WebP, GIF; at most 5 MiB each, 10 MiB together): the model reads a document's text and sees an image, if its model sees images",
                     "items": {"type": "object",
                       "properties": {
                         "name": {"type": "string", "description": "The file's name, e.g. notes.pdf (no path)"},
                         "mediaType": {"type": "string", "description": "e.g. application/pdf, text/markdown, image/png; left out, the name's extension decides (an image's bytes must be what it says)"},
                         "data": {"type": "string", "contentEncoding": "base64", "description": "The file's bytes in base64"}},
                       "required": ["name", "data"], "additionalProperties": false}}},
                 "required": ["prompt"], "additionalProperties": false}""".formatted(String.join(", ", providers), defaultProvider);
        this.definition = McpSchema.Tool.builder(NAME, ToolResults.schema(input))
                .title("Chat with a SkillForge model")
                .description("Sends a message in a SkillForge conversation and returns the model's answer with a continuation_id."
                        + " Pass that id with the next message to continue the same conversation: SkillForge keeps the whole"
                        + " history, so send only the new message. Leave it out to start a new conversation. The model (one of"
                        + " SkillForge's configured providers) can run SkillForge's skill commands during the turn: it lists, reads,"
                        + " writes and searches Agent Skills, so it can forge a skill from what the conversation found. The"
                        + " conversation also shows, and can be continued, on SkillForge's web page.")
                .outputSchema(ToolResults.schema(OUTPUT_SCHEMA))
                .annotations(new McpSchema.ToolAnnotations("Chat with a SkillForge model", false, true, false, true, null))
                .build();
    }

    @Override
    public McpSchema.Tool definition() {
        return definition;
    }

    @Override
    public McpSchema.CallToolResult call(ToolCall call) {
        ToolArguments arguments = call.arguments().allowOnly(ARGUMENTS);
        String prompt = arguments.required("prompt");
        String continuationId = arguments.optional("continuation_id");
        String provider = arguments.optional("provider");
        List<AttachedDocument> documents = documents(call);
        int bad = StorableText.firstBad(prompt);
        if (bad >= 0) { // checked before a new conversation is made for it
            throw new ToolError("'prompt' holds U+" + String.format("%04X", (int) prompt.charAt(bad)) + " at index " + bad
                    + ", which cannot be stored");
        }
        // Registered before the turn starts: a cancellation that comes while the conversation is being made stops the turn at its start.
        CompletableFuture<AgentRun> started = new CompletableFuture<>();
        TurnOutcome outcome = new TurnOutcome();
        ConversationRecord conversation;
        ToolCall.Registration cancellation = call.onCancel(() -> started.thenAccept(run -> run.cancel("cancelled by the MCP client")));
        try {
            AgentRun run;
            try {
                if (continuationId == null) {
                    turns.requireAccepted(provider, documents); // a refused file leaves no conversation behind
                }
                conversation = continuationId == null ? conversations.create(call.caller(), null, provider, null)
                        : continued(call.caller(), continuationId, provider);
                run = turns.startTurn(call.caller(), conversation.id(), prompt, documents);
            } catch (ConversationException e) {
                throw new ToolError(explain(e, continuationId));
            } catch (DocumentException e) {
                throw new ToolError(e.getMessage() + " (" + e.code() + ")");
            }
            started.complete(run);
            follow(run.events(), outcome, call, conversation.id());
        } finally {
            cancellation.close();
        }
        AgentEvent.Error error = outcome.error();
        if (error != null) {
            throw new ToolError("The turn failed: " + error.message() + " (" + error.code() + "). The conversation keeps everything"
                    + " up to the failure: call chat again with continuation_id " + conversation.id() + " to go on.");
        }
        return ToolResults.ok(outcome.text(conversation), outcome.structured(conversation));
    }

    /**
     * The call's attachments, read (text extracted) before anything is made, so that a bad one leaves nothing behind;
     * a cancellation of the call stops their reading.
     */
    private static List<AttachedDocument> documents(ToolCall call) {
        Object attachments = call.arguments().raw("attachments");
        Cancellation cancelled = new Cancellation();
        try (ToolCall.Registration ignored = call.onCancel(() -> cancelled.cancel("the MCP client cancelled the call"))) {
            return Documents.read(UploadsJson.fromJson(attachments == null ? null : Json.MAPPER.valueToTree(attachments), "attachments"),
                    cancelled);
        } catch (DocumentException e) {
            throw new ToolError(e.getMessage());
        }
    }

    /**
     * The conversation {@code id}, which must not be asked to change provider: the branch of it the page shows (after an
     * edited message or a regenerated answer there, the version shown, whose id the result then names).
     */
    private ConversationRecord continued(Caller caller, String id, String provider) {
        ConversationRecord conversation = conversations.shownBranch(caller, id);
        if (provider != null && !provider.equals(conversation.provider())) {
            throw new ToolError("Conversation " + id + " runs on provider " + conversation.provider() + " (model " + conversation.model()
                    + ") for its whole life, so that the provider's prompt cache keeps working; to talk to " + abbreviate(provider)
                    + ", start a new conversation: call chat without continuation_id.");
        }
        return conversation;
    }

    /** Reads the turn's events until its last, reporting progress per command and per iteration. */
    private static void follow(RunEventLog events, TurnOutcome outcome, ToolCall call, String conversationId) {
        long after = 0;
        while (!outcome.ended()) {
            List<RunEventLog.Frame> frames;
            try {
                frames = events.framesAfter(after, FOLLOW_WAIT);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ToolError("The server stopped waiting for the turn (it is shutting down). The conversation keeps what was"
                        + " done: continuation_id " + conversationId);
            }
            for (RunEventLog.Frame frame : frames) {
                after = frame.id();
                outcome.accept(frame.event());
                String step = progressMessage(frame.event());
                if (step != null) {
                    call.progress(step);
                }
            }
        }
    }

    /** A progress step: a command ended, or an iteration did; {@code null} for any other event. */
    static String progressMessage(AgentEvent event) {
        return switch (event) {
            case AgentEvent.ToolResult result -> result.commandId() + " `" + abbreviate(result.command().lines().findFirst().orElse(""))
                    + "` exited " + result.exitCode();
            case AgentEvent.IterationEnd end -> "iteration " + (end.iteration() + 1) + " done"
                    + (end.hasMoreCommands() ? ": its commands ran, the model is asked again" : "");
            default -> null;
        };
    }

    private static String explain(ConversationException e, String continuationId) {
        return switch (e.kind()) {
            case NOT_FOUND -> e.getMessage() + ": continuation_id must be one that chat returned; leave it out to start a new conversation";
            case BUSY -> e.getMessage() + " (continuation_id " + continuationId + "). Call chat again when that turn has ended.";
            case INVALID, TOO_LARGE, UNAVAILABLE, PROVIDER_GONE, STOPPING, BUDGET_SPENT -> e.getMessage();
        };
    }

    private static String abbreviate(String text) {
        return StorableText.abbreviate(text, 80);
    }
}
