package dev.skillforge.server.provider;

import dev.skillforge.server.JdbcStorage;
import dev.skillforge.testkit.RecordingListener;
import dev.skillforge.server.ProviderFactory;
import com.fasterxml.jackson.databind.JsonNode;
import dev.skillforge.core.agent.Cancellation;
import dev.skillforge.core.agent.ModelCall;
import dev.skillforge.core.agent.ProviderException;
import dev.skillforge.core.transcript.Entry;
import dev.skillforge.server.SkillForgeServer;
import dev.skillforge.server.config.Settings;
import dev.skillforge.testkit.SseClient;
import dev.skillforge.server.document.Vision;
import dev.skillforge.server.provider.gemini.GeminiWire;
import dev.skillforge.server.provider.openai.OpenAiChatWire;
import dev.skillforge.server.provider.sim.DemoAgent;
import dev.skillforge.server.provider.sim.SimProviderServer;
import dev.skillforge.server.store.JdbcConversationStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Several named providers from one configuration, the default among them, and GET /api/providers. */
class ProviderRegistryTest {

    private static final String PROVIDERS = """
            {"default": "demo",
             "providers": {
               "demo":  {"preset": "sim", "format": "gemini"},
               "fast":  {"preset": "gemini", "model": "gemini-2.5-flash"},
               "cheap": {"preset": "deepseek"},
               "local": {"preset": "llamacpp", "baseUrl": "http://127.0.0.1:8081/v1", "contextWindow": 8192}}}
            """;

    @TempDir
    Path data;

    @Test
    void everyConfiguredProviderIsBuiltAndFoundByName() throws Exception {
        Files.writeString(data.resolve("providers.json"), PROVIDERS);

        try (ProviderRegistry registry = ProviderFactory.registry(settings(Map.of("GEMINI_API_KEY", "AIza-secret")))) {
            assertThat(registry.defaultName()).isEqualTo("demo");
            assertThat(registry.names()).containsExactly("demo", "fast", "cheap", "local");
            assertThat(registry.get("fast").modelName()).isEqualTo("gemini-2.5-flash");
            assertThat(registry.get("fast").model()).isInstanceOf(dev.skillforge.server.provider.gemini.GeminiProvider.class);
            assertThat(registry.get("local").preset()).isEqualTo("llamacpp");
            assertThat(registry.defaultProvider().simulated()).isTrue();
            assertThat(registry.find("nope")).isEmpty();
            assertThatThrownBy(() -> registry.get("nope")).hasMessage("no provider is named nope: configured are demo, fast, cheap, local");
            Vision blind = OpenAiChatWire.VISION.seeing(false); // Chat Completions' limits, for a model that does not see
            assertThat(registry.listings()).containsExactly(
                    new ProviderRegistry.Listing("demo", "sim", SimProviderServer.MODEL, true, false, true, 131_072, GeminiWire.VISION),
                    new ProviderRegistry.Listing("fast", "gemini", "gemini-2.5-flash", false, true, false, 1_048_576, GeminiWire.VISION),
                    new ProviderRegistry.Listing("cheap", "deepseek", "deepseek-chat", false, false, false, 128_000, blind),
                    new ProviderRegistry.Listing("local", "llamacpp", "default", false, false, false, 8192, blind));
        }
    }

    @Test
    void aHostedProviderWithoutItsKeyFailsEachCallSayingWhichVariableToSet() throws Exception {
        Files.writeString(data.resolve("providers.json"), PROVIDERS);

        try (ProviderRegistry registry = ProviderFactory.registry(settings(Map.of("GEMINI_API_KEY", "k")))) {
            ProviderException e = catchThrowableOfType(ProviderException.class, () -> registry.get("cheap").model()
                    .stream(new ModelCall("s", List.of(new Entry.User("hi")), "k"), new RecordingListener(), new Cancellation()));

            assertThat(e.code()).isEqualTo("provider_no_key");
            assertThat(e.getMessage()).isEqualTo("The provider cheap (deepseek) has no API key: set DEEPSEEK_API_KEY and restart the server");
        }
    }

    @Test
    void configuredProviderFromSettingsStillBuildsTheDefaultAndTheSimulationCanSpeakGemini() throws Exception {
        try (ConfiguredProvider provider = ProviderFactory.defaultProvider(settings(Map.of("FORGE_SIM_FORMAT", "gemini")))) {
            RecordingListener listener = new RecordingListener();
            ModelCall call = new ModelCall("You forge skills.", List.of(new Entry.User("What skills do I have?")), "k");

            provider.model().stream(call, listener, new Cancellation());

            assertThat(provider.simulated()).isTrue();
            assertThat(provider.name()).isEqualTo("sim");
            assertThat(listener.allText()).startsWith(DemoAgent.SIMULATION_NOTICE).contains("<shell>skill list</shell>");
            JsonNode next = provider.nextRequestMessages().apply(call);
            assertThat(next.toString()).isEqualTo("{\"systemInstruction\":{\"parts\":[{\"text\":\"You forge skills.\"}]},"
                    + "\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"What skills do I have?\"}]}]}");
        }
    }

    @Test
    void getApiProvidersListsWhatIsConfiguredAndNeverAKey() throws Exception {
        Files.writeString(data.resolve("providers.json"), PROVIDERS);
        Settings settings = settings(Map.of("GEMINI_API_KEY", "AIza-secret-value"));

        try (SkillForgeServer server = SkillForgeServer.builder(data).providers(ProviderFactory.registry(settings))
                .storage(new JdbcStorage(JdbcConversationStore.open(null, null, null, data))).start()) {
            SseClient.Answer answer = SseClient.get("http://127.0.0.1:" + server.port() + "/api/providers");

            assertThat(answer.status()).isEqualTo(200);
            assertThat(answer.contentType()).startsWith("application/json");
            assertThat(answer.body()).doesNotContain("AIza-secret-value");
            assertThat(answer.body()).isEqualTo("{\"default\":\"demo\",\"providers\":["
                    + "{\"name\":\"demo\",\"preset\":\"sim\",\"model\":\"skillforge-sim-1\",\"simulated\":true,\"keyPresent\":false,\"default\":true,\"contextWindow\":131072"
                    + ",\"vision\":{\"sees\":true,\"mediaTypes\":[\"image/png\",\"image/jpeg\",\"image/webp\"],\"maxImageBytes\":5242880,\"maxSide\":8000,\"maxImages\":100,\"maxTotalBytes\":12582912}},"
                    + "{\"name\":\"fast\",\"preset\":\"gemini\",\"model\":\"gemini-2.5-flash\",\"simulated\":false,\"keyPresent\":true,\"default\":false,\"contextWindow\":1048576"
                    + ",\"vision\":{\"sees\":true,\"mediaTypes\":[\"image/png\",\"image/jpeg\",\"image/webp\"],\"maxImageBytes\":5242880,\"maxSide\":8000,\"maxImages\":100,\"maxTotalBytes\":12582912}},"
                    + "{\"name\":\"cheap\",\"preset\":\"deepseek\",\"model\":\"deepseek-chat\",\"simulated\":false,\"keyPresent\":false,\"default\":false,\"contextWindow\":128000,\"vision\":{\"sees\":false}},"
                    + "{\"name\":\"local\",\"preset\":\"llamacpp\",\"model\":\"default\",\"simulated\":false,\"keyPresent\":false,\"default\":false,\"contextWindow\":8192,\"vision\":{\"sees\":false}}]}");
            JsonNode health = SseClient.get("http://127.0.0.1:" + server.port() + "/healthz").json();
            assertThat(health.path("provider").path("name").asText()).isEqualTo("demo");
            assertThat(server.providers().get("fast").modelName()).isEqualTo("gemini-2.5-flash");
        }
    }

    @Test
    void aServerBuiltAroundOneProviderListsThatOne() throws Exception {
        try (SkillForgeServer server = SkillForgeServer.builder(data).provider(ProviderFactory.defaultProvider(settings(Map.of())))
                .storage(new JdbcStorage(JdbcConversationStore.open(null, null, null, data))).start()) {
            JsonNode listing = SseClient.get("http://127.0.0.1:" + server.port() + "/api/providers").json();

            assertThat(listing.path("default").asText()).isEqualTo("sim");
            assertThat(listing.path("providers")).hasSize(1);
            assertThat(listing.path("providers").get(0).path("simulated").asBoolean()).isTrue();
        }
    }

    private Settings settings(Map<String, String> values) {
        Map<String, String> env = new HashMap<>(values);
        env.put("FORGE_DATA_DIR", data.toString());
        return Settings.from(env);
    }
}
