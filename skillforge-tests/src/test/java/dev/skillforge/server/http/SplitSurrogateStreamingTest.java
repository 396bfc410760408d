package dev.skillforge.server.http;

import dev.skillforge.testkit.SseClient;
import dev.skillforge.testkit.ServerHarness;
import dev.skillforge.testkit.ServerHarness.SimProvider;
import dev.skillforge.server.provider.ProviderPreset;
import dev.skillforge.server.provider.sim.SimProviderServer;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.testkit.SimScript;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An emoji split between two provider chunks (its halves as two JSON escapes, as a model's tokens can
 * fall) reaches the client whole: the event stream is valid UTF-8 and the text and reasoning events
 * carry the emoji, not two question marks. In both wire formats.
 */
class SplitSurrogateStreamingTest {

    private static final String GRIN = "\uD83D\uDE00";
    private static final String THINKING = "\uD83E\uDD14";

    @ParameterizedTest(name = "gemini format: {0}")
    @ValueSource(booleans = {false, true})
    void anEmojiSplitAcrossTwoChunksIsStreamedWholeInValidUtf8(boolean gemini, @TempDir Path data) throws Exception {
        SimReply reply = SimReply.of("Smile ", "\uD83D", "\uDE00", " done").withReasoning("Hmm \uD83E", "\uDD14");
        int window = ProviderPreset.SIM.defaultContextWindow();
        SimProvider provider = gemini ? SimProvider.gemini("sim", SimProviderServer.MODEL, window)
                : SimProvider.openAi("sim", SimProviderServer.MODEL, window);
        try (ServerHarness server = ServerHarness.builder(data, new SimScript(reply)).providers(List.of(provider)).start()) {
            byte[] body;
            HttpResponse<InputStream> response = SseClient.open(server.url("/api/agent"), SseClient.userMessage("Smile!"));
            try (InputStream in = response.body()) {
                body = in.readAllBytes();
            }

            String decoded = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(body)).toString();
            assertThat(decoded).contains(GRIN).contains(THINKING);
            List<SseClient.Event> events = SseClient.readEvents(new ByteArrayInputStream(body), Integer.MAX_VALUE);
            assertThat(joined(events, "text", "content")).isEqualTo("Smile " + GRIN + " done");
            assertThat(joined(events, "reasoning", "content")).isEqualTo("Hmm " + THINKING);
            assertThat(joined(events, "raw-content", "rawContent")).isEqualTo("Smile " + GRIN + " done");
            assertThat(events).filteredOn(e -> e.type().equals("text") || e.type().equals("reasoning"))
                    .extracting(e -> e.text("content")).noneMatch(content -> content.contains("?") || content.contains("\uFFFD"));
        }
    }

    private static String joined(List<SseClient.Event> events, String type, String field) {
        return events.stream().filter(e -> e.type().equals(type)).map(e -> e.text(field)).reduce("", String::concat);
    }
}
