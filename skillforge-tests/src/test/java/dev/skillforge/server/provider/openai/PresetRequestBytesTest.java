package dev.skillforge.server.provider.openai;

import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.transcript.Entry;
import dev.skillforge.core.transcript.ProviderReplay;
import dev.skillforge.server.provider.ProviderPreset;
import dev.skillforge.server.provider.ProviderSpec;
import dev.skillforge.server.config.ProvidersConfig;
import dev.skillforge.server.provider.ConfiguredProvider;
import dev.skillforge.server.ProviderFactory;
import dev.skillforge.server.provider.RetryPolicy;
import dev.skillforge.server.provider.SimProviderTestBase;
import dev.skillforge.server.provider.sim.SimReply;
import dev.skillforge.server.provider.sim.SimRequest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which request options each OpenAI-compatible preset sends, read from the bytes that reach the
 * wire: each preset is built as the server builds it ({@link ProviderFactory}) and pointed at the
 * simulation, which keeps every body exactly as it came.
 */
class PresetRequestBytesTest extends SimProviderTestBase {

    private static final String MESSAGES = "\"messages\":["
            + "{\"role\":\"system\",\"content\":\"S\"},"
            + "{\"role\":\"user\",\"content\":\"q\"},"
            + "{\"role\":\"assistant\",\"content\":\"a\",\"reasoning_content\":\"think \\\"hard\\\"\\n\"},"
            + "{\"role\":\"user\",\"content\":\"[Shell Output]\\n$ x\\ny\"},"
            + "{\"role\":\"assistant\",\"content\":\"b\"%s},"
            + "{\"role\":\"user\",\"content\":\"q2\"}]";
    private static final String STREAM = ",\"stream\":true,\"stream_options\":{\"include_usage\":true}";

    static Stream<Arguments> presets() {
        return Stream.of(
                // prompt_cache_key only where the API documents it
                Arguments.of(ProviderPreset.OPENAI, "", STREAM + ",\"prompt_cache_key\":\"conv-42\"}"),
                Arguments.of(ProviderPreset.KIMI, "", STREAM + "}"),
                // thinking kept across turns (its reasoning then replayed verbatim), and the web_search tool in full
                Arguments.of(ProviderPreset.GLM, "", STREAM + ",\"thinking\":{\"type\":\"enabled\",\"clear_thinking\":false},"
                        + "\"tools\":[{\"type\":\"web_search\",\"web_search\":{\"enable\":true,\"search_engine\":\"search_std\",\"search_result\":true}}]}"),
                // reasoning_content on every assistant message, "" where there was none
                Arguments.of(ProviderPreset.DEEPSEEK, ",\"reasoning_content\":\"\"", STREAM + "}"),
                Arguments.of(ProviderPreset.OPENROUTER, "", STREAM + "}"),
                Arguments.of(ProviderPreset.VLLM, "", STREAM + "}"),
                Arguments.of(ProviderPreset.LLAMACPP, "", STREAM + ",\"cache_prompt\":true}"),
                Arguments.of(ProviderPreset.OLLAMA, "", STREAM + "}"));
    }

    @ParameterizedTest
    @MethodSource("presets")
    void eachPresetSendsExactlyItsOptions(ProviderPreset preset, String emptyReasoning, String tail) throws Exception {
        script.then(SimReply.of("ok"));
        ProviderSpec spec = new ProviderSpec(preset.id(), preset, "m-1", sim.baseUrl(), "KEY_VAR", "k-123", null,
                ProvidersConfig.defaultTools(preset), true, 128_000);
        ModelCall call = new ModelCall("S", List.of(new Entry.User("q"),
                new Entry.Assistant("a", new ProviderReplay(OpenAiChatRequest.REASONING_REPLAY, "think \"hard\"\n")),
                new Entry.Tool("$ x\ny"), new Entry.Assistant("b"), new Entry.User("q2")), "conv-42");

        try (ConfiguredProvider provider = ProviderFactory.create(spec, TIMEOUTS, RetryPolicy.DEFAULT)) {
            provider.model().stream(call, listener, cancellation);
        }

        SimRequest request = sim.requests().getFirst();
        assertThat(request.body()).isEqualTo("{\"model\":\"m-1\"," + MESSAGES.formatted(emptyReasoning) + tail);
        assertThat(request.headers()).containsEntry("authorization", "Bearer k-123");
        assertThat(request.path()).isEqualTo("/v1/chat/completions");
    }

    @ParameterizedTest
    @MethodSource("presets")
    void withoutItsToolsGlmSendsNoToolsAndOtherPresetsAreUnchanged(ProviderPreset preset, String emptyReasoning, String tail) throws Exception {
        script.then(SimReply.of("ok"));
        ProviderSpec spec = new ProviderSpec(preset.id(), preset, "m-1", sim.baseUrl(), null, null, null, List.of(), true, 128_000);

        try (ConfiguredProvider provider = ProviderFactory.create(spec, TIMEOUTS, RetryPolicy.DEFAULT)) {
            provider.model().stream(new ModelCall("S", List.of(new Entry.User("q")), "conv-42"), listener, cancellation);
        }

        String body = sim.requests().getFirst().body();
        assertThat(body).doesNotContain("\"tools\"");
        assertThat(body.contains("\"thinking\"")).isEqualTo(preset == ProviderPreset.GLM);
        assertThat(sim.requests().getFirst().headers()).doesNotContainKey("authorization");
    }
}
