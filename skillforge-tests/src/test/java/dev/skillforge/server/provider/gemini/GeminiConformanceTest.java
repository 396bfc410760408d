package dev.skillforge.server.provider.gemini;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.core.agent.ModelProvider;
import dev.skillforge.core.transcript.ProviderReplay;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.provider.ProviderConformanceTest;
import dev.skillforge.server.provider.RetryPolicy;
import dev.skillforge.server.provider.StreamingHttp;
import dev.skillforge.server.provider.sim.SimProviderServer;

import static org.assertj.core.api.Assertions.assertThat;

/** The Gemini client against the simulation's Gemini format (CRLF framing, proto3-style usage, signatures, grounding). */
class GeminiConformanceTest extends ProviderConformanceTest {

    @Override
    protected ModelProvider provider(SimProviderServer sim, StreamingHttp.Timeouts timeouts, RetryPolicy retry) {
        return new GeminiProvider(new GeminiProvider.Settings(sim.geminiBaseUrl(), API_KEY, SimProviderServer.MODEL, timeouts, retry,
                GeminiRequest.Options.ALL));
    }

    @Override
    protected String format() {
        return "gemini";
    }

    @Override
    protected String replayOnTheWire(ProviderReplay replay) {
        return "{\"role\":\"model\",\"parts\":" + replay.data() + "}";
    }

    @Override
    protected void assertReplayHolds(ProviderReplay replay, String reasoning, String signature) throws Exception {
        assertThat(replay.format()).isEqualTo(GeminiRequest.PARTS_REPLAY);
        JsonNode parts = Json.parse(replay.data());
        StringBuilder thoughts = new StringBuilder();
        for (JsonNode part : parts) {
            if (part.path("thought").asBoolean(false)) {
                thoughts.append(part.get("text").asText());
            }
        }
        assertThat(thoughts.toString()).isEqualTo(reasoning);
        if (signature != null) {
            JsonNode last = parts.get(parts.size() - 1);
            assertThat(last.get("text").asText()).isEmpty();
            assertThat(last.get("thoughtSignature").asText()).isEqualTo(signature);
        }
    }

    @Override
    protected boolean reportsSources() {
        return true;
    }

    @Override
    protected String personMessageWithImage(String mediaType, String base64, String text) {
        return "{\"role\":\"user\",\"parts\":[{\"inline_data\":{\"mime_type\":\"" + mediaType + "\",\"data\":\"" + base64
                + "\"}},{\"text\":\"" + text + "\"}]}";
    }

    @Override
    protected int firstMessageIndex() {
        return 0; // the system prompt is systemInstruction
    }
}
