package dev.skillforge.server.provider.sim;

import dev.skillforge.testkit.SimScript;
import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.server.json.Json;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The simulated models' context window: a prompt longer than it is refused before the model is
 * asked, in each wire format's own words, and a prompt that fits is answered.
 */
class SimContextWindowTest {

    private static final int WINDOW = 100;
    private static final String LONG = "word ".repeat(300);

    private final SimScript script = new SimScript();
    private final SimProviderServer sim = SimProviderServer.startOnLoopback(script,
            SimProviderServer.Options.DEFAULT.withContextWindow(WINDOW).recordingRequests());
    private final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void stop() {
        sim.close();
    }

    @Test
    void openAiFormatAnswers400ContextLengthExceededWithBothCounts() throws Exception {
        HttpResponse<String> response = post(sim.baseUrl() + "/chat/completions", openAi(LONG));

        JsonNode error = Json.parse(response.body()).path("error");
        long prompt = sim.requests().getFirst().promptTokens();
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(error.path("code").asText()).isEqualTo("context_length_exceeded");
        assertThat(error.path("type").asText()).isEqualTo("invalid_request_error");
        assertThat(error.path("message").asText()).isEqualTo("This model's maximum context length is " + WINDOW
                + " tokens. However, your messages resulted in " + prompt + " tokens. Please reduce the length of the messages.");
        assertThat(sim.requests().getFirst().cachedTokens()).isZero();
    }

    @Test
    void geminiFormatAnswers400InvalidArgumentWithBothCounts() throws Exception {
        HttpResponse<String> response = post(sim.geminiBaseUrl() + "/v1beta/models/" + SimProviderServer.MODEL
                + ":streamGenerateContent?alt=sse", gemini(LONG));

        JsonNode error = Json.parse(response.body()).path("error");
        long prompt = sim.requests().getFirst().promptTokens();
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(error.path("status").asText()).isEqualTo("INVALID_ARGUMENT");
        assertThat(error.path("message").asText())
                .isEqualTo("The input token count (" + prompt + ") exceeds the maximum number of tokens allowed (" + WINDOW + ").");
    }

    @Test
    void aPromptThatFitsIsAnsweredAndTheModelIsAskedOnlyThen() throws Exception {
        script.then(SimReply.of("short answer"));

        HttpResponse<String> refused = post(sim.baseUrl() + "/chat/completions", openAi(LONG));
        HttpResponse<String> answered = post(sim.baseUrl() + "/chat/completions", openAi("hi"));

        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(answered.statusCode()).isEqualTo(200);
        assertThat(answered.body()).contains("short answer");
        assertThat(script.remaining()).isZero();
    }

    private static String openAi(String content) {
        var body = Json.object().put("model", SimProviderServer.MODEL);
        body.putArray("messages").addObject().put("role", "user").put("content", content);
        return Json.write(body);
    }

    private static String gemini(String content) {
        var body = Json.object();
        body.putArray("contents").addObject().put("role", "user").putArray("parts").addObject().put("text", content);
        return Json.write(body);
    }

    private HttpResponse<String> post(String url, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
