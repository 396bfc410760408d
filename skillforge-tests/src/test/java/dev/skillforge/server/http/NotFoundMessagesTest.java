package dev.skillforge.server.http;

import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.testkit.SimScript;
import dev.skillforge.testkit.SseClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A 404 on a server without a token says what it did not find (everything there is open to this machine, so
 * there is nothing to hide); with a token, every 404 is the one answer {@code AuthenticationTest} checks.
 */
class NotFoundMessagesTest {

    @TempDir
    Path data;

    private static String message(SseClient.Answer answer) throws Exception {
        assertThat(answer.status()).isEqualTo(404);
        assertThat(answer.json().path("error").path("code").asText()).isEqualTo("not_found");
        return answer.json().path("error").path("message").asText();
    }

    @Test
    void withoutATokenA404SaysWhatWasNotFound() throws Exception {
        try (ServerHarness server = new ServerHarness(data, new SimScript())) {
            String unknown = UUID.randomUUID().toString();
            assertThat(message(SseClient.get(server.url("/api/conversations/" + unknown)))).isEqualTo("No conversation with id " + unknown);
            assertThat(message(SseClient.get(server.url("/api/skills/no-such-skill")))).isEqualTo("No skill named no-such-skill");
            assertThat(message(SseClient.get(server.url("/api/nothing-here")))).isEqualTo("No such endpoint: GET /api/nothing-here");
        }
    }
}
