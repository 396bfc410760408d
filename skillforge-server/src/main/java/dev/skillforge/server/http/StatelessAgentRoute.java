package dev.skillforge.server.http;

import dev.skillforge.core.agent.EventSink;
import dev.skillforge.core.transcript.Transcript;
import dev.skillforge.server.conversation.MessageLimit;
import dev.skillforge.server.conversation.StatelessAgent;
import dev.skillforge.server.run.AgentRun;
import dev.skillforge.server.run.RunEventLog;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;

/**
 * {@code POST /api/agent}: the seeds' stateless mode, the client sends the whole history and gets the turn back as
 * Server-Sent Events; with a {@code conversationId} the turn is that conversation's ({@link ConversationRoutes}).
 */
public final class StatelessAgentRoute implements Door {

    private final StatelessAgent stateless;
    private final String systemPrompt;
    private final ConversationRoutes conversations;
    private final BiFunction<String, String, EventSink> runObserver;

    /**
     * @param systemPrompt  the prompt a stateless turn runs under
     * @param conversations where a turn with a {@code conversationId} goes, and whether this instance takes turns
     * @param runObserver   an observer (metrics, traces) for each stateless run, given the person's id and the new message
     */
    public StatelessAgentRoute(StatelessAgent stateless, String systemPrompt, ConversationRoutes conversations,
                               BiFunction<String, String, EventSink> runObserver) {
        this.stateless = stateless;
        this.systemPrompt = systemPrompt;
        this.conversations = conversations;
        this.runObserver = runObserver;
    }

    @Override
    public void register(JavalinConfig config) {
        config.routes.post("/api/agent", this::agent);
    }

    /**
     * A stateless turn lives as long as its client: if the client leaves, the run is stopped. With a
     * {@code conversationId} the turn is the conversation's, and belongs to the server.
     */
    private void agent(Context ctx) throws Exception {
        AgentRequest request = AgentRequest.from(RequestBodies.readJsonObject(ctx.req(), RequestBodies.MAX_UPLOAD_BODY_BYTES),
                messages -> ConversationRoutes.readDocuments(ctx, messages));
        if (request.conversationId() != null) {
            // the service checks the message
            conversations.streamTurn(ctx, request.conversationId(), request.newMessage(), request.newDocuments());
            return;
        }
        MessageLimit.check(request.newMessage());
        stateless.requireSeen(request.messages());
        if (!conversations.ready()) {
            throw new ApiException(503, "server_stopping", "This server instance is stopping; send the request again");
        }
        String person = Callers.of(ctx).personId();
        stateless.budgets().requireRoom(person);
        AtomicLong ids = new AtomicLong();
        String key = StatelessAgent.key(request.messages().getFirst().content());
        AgentRun run = AgentRun.start(stateless.loop(), new Transcript(request.messages()), systemPrompt, key,
                stateless.commands().apply(person, key), new RunEventLog(ids::incrementAndGet),
                stateless.budgets().counting(person, stateless.prices(), runObserver.apply(person, request.newMessage())),
                last -> { });
        conversations.follow(ctx, run.events(), 0).thenAccept(followedToTheEnd -> {
            if (!followedToTheEnd) {
                run.cancel("the client disconnected");
            }
        });
    }
}
