package dev.skillforge.bench.load;

import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.web.Servers;
import io.javalin.http.Context;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The load benchmark's peer: the same agent loop as a Java team would write it with LangChain4j 1.19 and Javalin,
 * beside SkillForge in the same run ({@code ./skillforge bench load --peer langchain4j}). {@code POST /api/agent}
 * takes the history, streams the model's answer through {@link OpenAiStreamingChatModel} (its own JDK HTTP client),
 * relays each piece as a {@code text} event, runs a {@code <shell>skill list</shell>} in the answer (the skills
 * folder's names, in process), sends the output back as the next message, up to 10 calls, and ends with {@code done}:
 * the events the load client reads, in SkillForge's wire form. It stores nothing, checks no cache prefix, runs no
 * sandbox, keeps no event log for a client that comes back, and counts no metrics: what SkillForge does besides.
 *
 * <p>Arguments: the port and the upstream's base URL ({@code http://127.0.0.1:N/v1}); prints {@code port N}.
 */
public final class LangChain4jPeer {

    private static final Pattern SHELL = Pattern.compile("<shell>(.*?)</shell>", Pattern.DOTALL);
    private static final int MAX_CALLS = 10;

    private final StreamingChatModel model;
    private final String systemPrompt = "You are SkillForge, an agent that learns skills. ".repeat(40);
    private final Path skills;

    private LangChain4jPeer(String upstream, Path skills) {
        this.model = OpenAiStreamingChatModel.builder().baseUrl(upstream).apiKey("sk-load-bench-not-a-real-key")
                .modelName("paced-1").build();
        this.skills = skills;
    }

    public static void main(String[] args) throws Exception {
        Path skills = Files.createTempDirectory("langchain4j-peer-skills");
        LangChain4jPeer peer = new LangChain4jPeer(args[1], skills);
        var app = Servers.start("127.0.0.1", Integer.parseInt(args[0]), config -> {
            config.routes.post("/api/agent", peer::agent);
            config.routes.get("/healthz", ctx -> ctx.result("ok"));
        });
        System.out.println("port " + app.port());
        System.out.flush();
        Thread.currentThread().join();
    }

    private void agent(Context ctx) throws Exception {
        List<ChatMessage> messages = new ArrayList<>();
        messages.add(SystemMessage.from(systemPrompt));
        for (JsonNode message : Json.parse(ctx.body()).path("messages")) {
            String content = message.path("content").asText();
            messages.add("assistant".equals(message.path("role").asText()) ? AiMessage.from(content) : UserMessage.from(content));
        }
        ctx.status(200).contentType("text/event-stream");
        OutputStream out = ctx.res().getOutputStream();
        for (int call = 1; call <= MAX_CALLS; call++) {
            String answer = stream(messages, out);
            messages.add(AiMessage.from(answer));
            send(out, Json.object().put("type", "raw-content").put("rawContent", answer));
            Matcher command = SHELL.matcher(answer);
            if (!command.find()) {
                break;
            }
            String output = "[Shell Output]\n$ " + command.group(1).strip() + "\n" + run(command.group(1).strip());
            messages.add(UserMessage.from(output));
            send(out, Json.object().put("type", "tool-output").put("toolOutput", output));
        }
        send(out, Json.object().put("type", "done"));
    }

    /** One streamed model call: each piece relayed as it comes; the whole answer when it ends. */
    private String stream(List<ChatMessage> messages, OutputStream out) throws Exception {
        CompletableFuture<String> answer = new CompletableFuture<>();
        model.chat(messages, new StreamingChatResponseHandler() {
            @Override
            public void onPartialResponse(String piece) {
                try {
                    send(out, Json.object().put("type", "text").put("delta", piece));
                } catch (IOException e) {
                    answer.completeExceptionally(e);
                }
            }

            @Override
            public void onCompleteResponse(ChatResponse response) {
                answer.complete(response.aiMessage().text());
            }

            @Override
            public void onError(Throwable error) {
                answer.completeExceptionally(error);
            }
        });
        return answer.get();
    }

    /** {@code skill list}: the skills folder's entries; anything else is refused. */
    private String run(String command) throws IOException {
        if (!command.equals("skill list")) {
            return "unknown command";
        }
        try (Stream<Path> entries = Files.list(skills)) {
            List<String> names = entries.map(path -> path.getFileName().toString()).sorted().toList();
            return names.isEmpty() ? "No skills yet." : String.join("\n", names);
        }
    }

    private static void send(OutputStream out, JsonNode event) throws IOException {
        out.write(("data: " + Json.write(event) + "\n\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }
}
