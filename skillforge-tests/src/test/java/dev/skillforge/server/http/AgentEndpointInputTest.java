package dev.skillforge.server.http;

import dev.skillforge.testkit.SseClient;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.testkit.SimScript;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** Bad requests to {@code POST /api/agent} get a 4xx JSON error before any stream starts, and reach no provider. */
class AgentEndpointInputTest {

    @TempDir
    static Path data;
    static ServerHarness server;

    @BeforeAll
    static void start() throws Exception {
        server = new ServerHarness(data, new SimScript());
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            malformed JSON              | {"messages": [                                                   | invalid_json    | Malformed JSON at line 1
            not an object               | [1, 2]                                                            | invalid_request | must be a JSON object
            empty body                  | '   '                                                             | empty_body      | empty
            messages missing            | {"msgs": []}                                                      | invalid_request | 'messages' is missing
            messages not an array       | {"messages": "hi"}                                                | invalid_request | must be an array, not a string
            messages empty              | {"messages": []}                                                  | invalid_request | 'messages' is empty
            message not an object       | {"messages": [42]}                                                | invalid_request | messages[0] must be an object, not a number
            role missing                | {"messages": [{"content": "hi"}]}                                 | invalid_request | messages[0].role must be a string
            role not a string           | {"messages": [{"role": 1, "content": "hi"}]}                      | invalid_request | messages[0].role must be a string
            role empty                  | {"messages": [{"role": "", "content": "hi"}]}                     | invalid_request | messages[0].role is empty
            role unknown                | {"messages": [{"role": "system", "content": "hi"}]}               | invalid_request | messages[0].role "system" is unknown
            content not a string        | {"messages": [{"role": "user", "content": ["hi"]}]}               | invalid_request | messages[0].content must be a string, not an array
            content null                | {"messages": [{"role": "user", "content": null}]}                 | invalid_request | messages[0].content must be a string, not null
            last message not the user's | {"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]} | invalid_request | The last message must be the user's
            last message blank          | {"messages": [{"role": "user", "content": "  "}]}                 | invalid_request | The last message is empty
            """)
    void badBodyIsRefusedWithAClearError(String why, String body, String code, String message) throws Exception {
        SseClient.Answer answer = SseClient.postForAnswer(server.url("/api/agent"), body);

        assertThat(answer.status()).as(why).isEqualTo(400);
        assertThat(answer.contentType()).startsWith("application/json");
        assertThat(answer.json().path("error").path("code").asText()).isEqualTo(code);
        assertThat(answer.json().path("error").path("message").asText()).contains(message);
        assertThat(server.sim.requests()).isEmpty();
    }

    @Test
    void bodyOverTheLimitIsRefusedWith413() throws Exception {
        String huge = SseClient.userMessage("x".repeat(RequestBodies.MAX_UPLOAD_BODY_BYTES));

        SseClient.Answer answer = SseClient.postForAnswer(server.url("/api/agent"), huge);

        assertThat(answer.status()).isEqualTo(413);
        assertThat(answer.json().path("error").path("code").asText()).isEqualTo("body_too_large");
        assertThat(answer.json().path("error").path("message").asText()).contains(String.valueOf(RequestBodies.MAX_UPLOAD_BODY_BYTES));
        assertThat(server.sim.requests()).isEmpty();
    }

    @Test
    void unknownPathAndWrongMethodAnswerJson() throws Exception {
        SseClient.Answer missing = SseClient.get(server.url("/api/nothing-here"));
        SseClient.Answer wrongMethod = SseClient.get(server.url("/api/agent"));

        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.json().path("error").path("code").asText()).isEqualTo("not_found");
        assertThat(wrongMethod.status()).isEqualTo(405);
        assertThat(wrongMethod.json().path("error").path("code").asText()).isEqualTo("method_not_allowed");
    }

    @Test
    void healthSaysTheProviderIsASimulation() throws Exception {
        SseClient.Answer health = SseClient.get(server.url("/healthz"));

        assertThat(health.status()).isEqualTo(200);
        assertThat(health.json().path("status").asText()).isEqualTo("ok");
        assertThat(health.json().path("provider").path("simulated").asBoolean()).isTrue();
    }
}
