package dev.skillforge.server.provider.openai;

import com.fasterxml.jackson.databind.node.TextNode;
import dev.skillforge.core.agent.ModelProvider;
import dev.skillforge.core.transcript.ProviderReplay;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.provider.ProviderConformanceTest;
import dev.skillforge.server.ProviderFactory;
import dev.skillforge.server.provider.RetryPolicy;
import dev.skillforge.server.provider.StreamingHttp;
import dev.skillforge.server.provider.sim.SimProviderServer;

import static org.assertj.core.api.Assertions.assertThat;

/** The OpenAI-compatible client with the openai preset's options, against the simulation's OpenAI format. */
class OpenAiCompatibleConformanceTest extends ProviderConformanceTest {

    @Override
    protected ModelProvider provider(SimProviderServer sim, StreamingHttp.Timeouts timeouts, RetryPolicy retry) {
        return new OpenAiCompatibleProvider(new OpenAiCompatibleProvider.Settings(sim.baseUrl(), API_KEY, SimProviderServer.MODEL,
                true, timeouts, retry, options()));
    }

    protected ChatOptions options() {
        return OpenAiPresets.OPENAI;
    }

    @Override
    protected String format() {
        return "openai";
    }

    @Override
    protected String replayOnTheWire(ProviderReplay replay) {
        return "\"reasoning_content\":" + Json.write(new TextNode(replay.data()));
    }

    @Override
    protected void assertReplayHolds(ProviderReplay replay, String reasoning, String signature) {
        // chat completions have no signature: the reasoning is the whole native piece
        assertThat(replay).isEqualTo(new ProviderReplay(OpenAiChatRequest.REASONING_REPLAY, reasoning));
    }

    @Override
    protected boolean reportsSources() {
        return false;
    }

    @Override
    protected String personMessageWithImage(String mediaType, String base64, String text) {
        return "{\"role\":\"user\",\"content\":[{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:" + mediaType + ";base64,"
                + base64 + "\"}},{\"type\":\"text\",\"text\":\"" + text + "\"}]}";
    }

    @Override
    protected int firstMessageIndex() {
        return 1; // after the system message
    }
}
