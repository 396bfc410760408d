package dev.skillforge.server.provider.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.core.agent.ModelProvider;
import dev.skillforge.core.transcript.ProviderReplay;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.provider.ProviderConformanceTest;
import dev.skillforge.server.provider.RetryPolicy;
import dev.skillforge.server.provider.StreamingHttp;
import dev.skillforge.server.provider.sim.SimProviderServer;
import dev.skillforge.server.provider.sim.SimRequest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Anthropic client against the simulation's Anthropic format ({@code FORGE_SIM_FORMAT=anthropic}): named events,
 * signed thinking blocks checked when they come back, the prompt cache with writes reported apart from reads.
 */
class AnthropicConformanceTest extends ProviderConformanceTest {

    @Override
    protected ModelProvider provider(SimProviderServer sim, StreamingHttp.Timeouts timeouts, RetryPolicy retry) {
        return new AnthropicProvider(new AnthropicProvider.Settings(sim.anthropicBaseUrl(), API_KEY, SimProviderServer.MODEL, timeouts,
                retry, AnthropicRequest.Options.DEFAULT));
    }

    @Override
    protected String format() {
        return "anthropic";
    }

    @Override
    protected String replayOnTheWire(ProviderReplay replay) {
        return "{\"role\":\"assistant\",\"content\":" + replay.data() + "}";
    }

    @Override
    protected void assertReplayHolds(ProviderReplay replay, String reasoning, String signature) throws Exception {
        assertThat(replay.format()).isEqualTo(AnthropicRequest.CONTENT_REPLAY);
        JsonNode thinking = Json.parse(replay.data()).get(0);
        assertThat(thinking.get("type").asText()).isEqualTo("thinking");
        assertThat(thinking.get("thinking").asText()).isEqualTo(reasoning);
        // Anthropic signs every thinking block: the simulation's own signature, or the scripted one
        assertThat(thinking.get("signature").asText()).isNotEmpty();
        if (signature != null) {
            assertThat(thinking.get("signature").asText()).isEqualTo(signature);
        }
    }

    @Override
    protected boolean reportsSources() {
        return false;
    }

    @Override
    protected Long cacheWriteTokens(SimRequest request) {
        return request.cacheWriteTokens();
    }

    @Override
    protected String personMessageWithImage(String mediaType, String base64, String text) {
        return "{\"role\":\"user\",\"content\":[{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"media_type\":\""
                + mediaType + "\",\"data\":\"" + base64 + "\"}},{\"type\":\"text\",\"text\":\"" + text + "\"}]}";
    }

    @Override
    protected int firstMessageIndex() {
        return 0; // the system prompt is system
    }
}
