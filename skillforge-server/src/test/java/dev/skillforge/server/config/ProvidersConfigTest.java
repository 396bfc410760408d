package dev.skillforge.server.config;

import dev.skillforge.server.provider.AnthropicSettings;
import dev.skillforge.server.provider.ProviderSpec;
import dev.skillforge.server.provider.ProviderPreset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** FORGE_PROVIDER and its presets, the keys' usual variables, and the providers file. */
class ProvidersConfigTest {

    @TempDir
    Path data;

    // ================================================================ the FORGE_* provider

    @Test
    void noProviderAndNoKeyIsTheSimulationInOpenAiFormat() {
        ProvidersConfig config = config(Map.of());

        assertThat(config.defaultName()).isEqualTo("sim");
        ProviderSpec sim = config.defaultSpec();
        assertThat(sim.preset()).isEqualTo(ProviderPreset.SIM);
        assertThat(sim.simFormat()).isEqualTo("openai");
        assertThat(sim.simulated()).isTrue();
        assertThat(sim.model()).isEqualTo("skillforge-sim-1");
        assertThat(config.providers()).hasSize(1);
    }

    @Test
    void forgeSimFormatGeminiOrAnthropicRunsTheSimulationInThatFormat() {
        assertThat(config(Map.of("FORGE_SIM_FORMAT", "Gemini")).defaultSpec().simFormat()).isEqualTo("gemini");
        ProviderSpec anthropic = config(Map.of("FORGE_SIM_FORMAT", "anthropic")).defaultSpec();
        assertThat(anthropic.simFormat()).isEqualTo("anthropic");
        assertThat(anthropic.anthropic()).isEqualTo(AnthropicSettings.DEFAULT);
        assertThat(anthropic.prices()).as("a simulation costs nothing the table knows").isNull();
        assertThat(config(Map.of()).defaultSpec().anthropic()).isNull();
        assertThatThrownBy(() -> config(Map.of("FORGE_SIM_FORMAT", "bedrock")))
                .hasMessage("FORGE_SIM_FORMAT=bedrock is not supported: use openai, gemini or anthropic");
    }

    // ================================================================ Anthropic

    @Test
    void anthropicTakesAnthropicApiKeyAtItsOwnUrlAndDefaultsToTheCurrentSonnetWithItsWindowAndPrices() {
        ProviderSpec spec = config(Map.of("FORGE_PROVIDER", "anthropic", "ANTHROPIC_API_KEY", "sk-ant")).defaultSpec();

        assertThat(spec.apiKey()).isEqualTo("sk-ant");
        assertThat(spec.apiKeyEnv()).isEqualTo("ANTHROPIC_API_KEY");
        assertThat(spec.baseUrl()).isEqualTo("https://api.anthropic.com");
        assertThat(spec.model()).isEqualTo("claude-sonnet-5-5");
        assertThat(spec.contextWindow()).isEqualTo(1_000_000);
        assertThat(spec.anthropic()).isEqualTo(new AnthropicSettings(32_000, null, "5m", false));
        assertThat(spec.prices()).isEqualTo(new dev.skillforge.server.price.TokenPrices(2.00, 0.20, 2.50, 10.00));
        assertThatThrownBy(() -> config(Map.of("FORGE_PROVIDER", "anthropic")))
                .hasMessage("FORGE_PROVIDER=anthropic needs an API key: set FORGE_API_KEY or ANTHROPIC_API_KEY");
    }

    @Test
    void anthropicsMaxTokensThinkingBudgetAndCacheTtlComeFromTheirVariablesAndAnHourLongCacheIsPricedAsSuch() {
        ProviderSpec spec = config(Map.of("FORGE_PROVIDER", "anthropic", "ANTHROPIC_API_KEY", "k", "FORGE_MAX_TOKENS", "16000",
                "FORGE_THINKING_BUDGET", "8000", "FORGE_CACHE_TTL", "1H", "FORGE_BASE_URL", "https://proxy.example/v1/")).defaultSpec();

        assertThat(spec.anthropic()).isEqualTo(new AnthropicSettings(16_000, 8000, "1h", false));
        assertThat(spec.prices().cacheWrite()).as("Sonnet 5.5's 1-hour write price").isEqualTo(4.00);
        assertThat(spec.baseUrl()).isEqualTo("https://proxy.example");
        assertThat(spec.apiKey()).as("a vendor's usual variable goes only to the vendor's own URL").isNull();
    }

    @Test
    void anthropicSettingMistakesNameTheirVariable() {
        Map<String, String> anthropic = Map.of("FORGE_PROVIDER", "anthropic", "ANTHROPIC_API_KEY", "k");
        assertThatThrownBy(() -> config(with(anthropic, "FORGE_CACHE_TTL", "10m")))
                .hasMessage("FORGE_CACHE_TTL=10m is not supported: use 5m or 1h");
        assertThatThrownBy(() -> config(with(anthropic, "FORGE_THINKING_BUDGET", "512")))
                .hasMessage("FORGE_THINKING_BUDGET=512 is out of range: use 1024 to 1000000");
        assertThatThrownBy(() -> config(with(with(anthropic, "FORGE_THINKING_BUDGET", "4000"), "FORGE_MAX_TOKENS", "4000")))
                .hasMessage("FORGE_THINKING_BUDGET=4000 must be less than FORGE_MAX_TOKENS (4000): thinking counts toward the output limit");
        assertThatThrownBy(() -> config(with(anthropic, "FORGE_MAX_TOKENS", "zero")))
                .hasMessage("FORGE_MAX_TOKENS=zero is not a whole number");
        assertThatThrownBy(() -> config(Map.of("FORGE_PROVIDER", "gemini", "GEMINI_API_KEY", "k", "FORGE_MAX_TOKENS", "100")))
                .hasMessageStartingWith("FORGE_MAX_TOKENS is a setting of Anthropic's format: it applies to FORGE_PROVIDER=anthropic");
    }

    @Test
    void theProvidersFileSetsAnthropicsOptionsExplicitBreakpointsAndItsOwnPrices() throws IOException {
        Files.writeString(data.resolve("providers.json"), """
                {"providers": {
                   "claude": {"preset": "anthropic", "model": "claude-opus-5-5", "maxTokens": 64000, "cacheTtl": "1h",
                              "cacheBreakpoints": "explicit", "thoughts": false},
                   "old":    {"preset": "anthropic", "model": "claude-sonnet-4-5", "thinkingBudget": 2048},
                   "gateway":{"preset": "anthropic", "model": "claude-next", "baseUrl": "https://gw.example",
                              "prices": {"input": 1.5, "cachedInput": 0.15, "cacheWrite": 1.875, "output": 7.5}},
                   "demo":   {"preset": "sim", "format": "anthropic", "prices": {"input": 2, "cachedInput": 0.2, "cacheWrite": 2.5, "output": 10}}}}
                """);

        ProvidersConfig config = config(Map.of("ANTHROPIC_API_KEY", "k"));

        ProviderSpec claude = config.find("claude").orElseThrow();
        assertThat(claude.anthropic()).isEqualTo(new AnthropicSettings(64_000, null, "1h", true));
        assertThat(claude.thoughts()).isFalse();
        assertThat(claude.prices()).as("Opus 5.5 with 1-hour writes").isEqualTo(new dev.skillforge.server.price.TokenPrices(4.00, 0.20, 8.00, 20.00));
        assertThat(config.find("old").orElseThrow().anthropic()).isEqualTo(new AnthropicSettings(32_000, 2048, "5m", false));
        assertThat(config.find("gateway").orElseThrow().prices()).isEqualTo(new dev.skillforge.server.price.TokenPrices(1.5, 0.15, 1.875, 7.5));
        ProviderSpec demo = config.find("demo").orElseThrow();
        assertThat(demo.simFormat()).isEqualTo("anthropic");
        assertThat(demo.prices().output()).isEqualTo(10);
        assertThat(config.find("gateway").orElseThrow().model()).isEqualTo("claude-next");
    }

    @Test
    void anthropicAndPriceMistakesInTheFileSayWhere() throws IOException {
        Path file = data.resolve("providers.json");
        List<String[]> cases = List.of(
                new String[]{"{\"providers\": {\"a\": {\"preset\": \"openai\", \"maxTokens\": 100}}}",
                        "providers.a.maxTokens is a setting of Anthropic's format"},
                new String[]{"{\"providers\": {\"a\": {\"preset\": \"anthropic\", \"cacheBreakpoints\": \"some\"}}}",
                        "providers.a.cacheBreakpoints must be \"automatic\""},
                new String[]{"{\"providers\": {\"a\": {\"preset\": \"anthropic\", \"thinkingBudget\": 1000}}}",
                        "providers.a.thinkingBudget must be a whole number of tokens from 1024"},
                new String[]{"{\"providers\": {\"a\": {\"preset\": \"anthropic\", \"thinkingBudget\": 40000}}}",
                        "providers.a.thinkingBudget (40000) must be less than maxTokens (32000)"},
                new String[]{"{\"providers\": {\"a\": {\"preset\": \"anthropic\", \"prices\": {\"input\": 1}}}}",
                        "providers.a.prices.cachedInput must be a price in dollars per million tokens (0 or more), was null"},
                new String[]{"{\"providers\": {\"a\": {\"preset\": \"anthropic\", \"prices\": {\"input\": -1, \"cachedInput\": 0,"
                        + " \"cacheWrite\": 0, \"output\": 0}}}}", "providers.a.prices.input must be a price"},
                new String[]{"{\"providers\": {\"a\": {\"preset\": \"anthropic\", \"prices\": {\"inputs\": 1}}}}",
                        "providers.a.prices: unknown field \"inputs\""},
                new String[]{"{\"providers\": {\"a\": {\"preset\": \"openai\", \"thoughts\": true}}}",
                        "providers.a.thoughts is a Gemini and Anthropic setting"});
        for (String[] c : cases) {
            Files.writeString(file, c[0]);
            assertThatThrownBy(() -> config(Map.of("ANTHROPIC_API_KEY", "k", "OPENAI_API_KEY", "k"))).as(c[0])
                    .hasMessageContaining(c[1]).hasMessageContaining(file.toString());
        }
    }

    @Test
    void forgeApiKeyAloneMeansOpenAiAsBefore() {
        ProviderSpec spec = config(Map.of("FORGE_API_KEY", "sk-1")).defaultSpec();

        assertThat(spec.name()).isEqualTo("openai");
        assertThat(spec.baseUrl()).isEqualTo("https://api.openai.com/v1");
        assertThat(spec.model()).isEqualTo("gpt-4o-mini");
        assertThat(spec.apiKey()).isEqualTo("sk-1");
        assertThat(spec.apiKeyEnv()).isEqualTo("FORGE_API_KEY");
    }

    @ParameterizedTest
    @CsvSource({
            "gemini, GEMINI_API_KEY, https://generativelanguage.googleapis.com, gemini-2.5-flash",
            "openai, OPENAI_API_KEY, https://api.openai.com/v1, gpt-4o-mini",
            "glm, ZHIPUAI_API_KEY, https://open.bigmodel.cn/api/paas/v4, glm-4.6",
            "deepseek, DEEPSEEK_API_KEY, https://api.deepseek.com, deepseek-chat",
    })
    void presetTakesItsKeyFromItsUsualVariableWhenForgeApiKeyIsNotSet(String preset, String variable, String baseUrl, String model) {
        ProviderSpec spec = config(Map.of("FORGE_PROVIDER", preset, variable, "the-key")).defaultSpec();

        assertThat(spec.preset().id()).isEqualTo(preset);
        assertThat(spec.apiKey()).isEqualTo("the-key");
        assertThat(spec.apiKeyEnv()).isEqualTo(variable);
        assertThat(spec.baseUrl()).isEqualTo(baseUrl);
        assertThat(spec.model()).isEqualTo(model);
    }

    @Test
    void forgeApiKeyWinsOverThePresetsVariableAndGoogleApiKeyIsGeminisSecondChoice() {
        assertThat(config(Map.of("FORGE_PROVIDER", "gemini", "FORGE_API_KEY", "forge", "GEMINI_API_KEY", "usual")).defaultSpec().apiKey())
                .isEqualTo("forge");
        ProviderSpec google = config(Map.of("FORGE_PROVIDER", "gemini", "GOOGLE_API_KEY", "g")).defaultSpec();
        assertThat(google.apiKey()).isEqualTo("g");
        assertThat(google.apiKeyEnv()).isEqualTo("GOOGLE_API_KEY");
    }

    @Test
    void hostedPresetWithoutAKeyStopsTheStartNamingTheVariables() {
        assertThatThrownBy(() -> config(Map.of("FORGE_PROVIDER", "gemini")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("FORGE_PROVIDER=gemini needs an API key: set FORGE_API_KEY or GEMINI_API_KEY or GOOGLE_API_KEY");
    }

    @Test
    void hostedPresetBehindAnotherUrlAndSelfHostedPresetsNeedNoKey() {
        ProviderSpec proxied = config(Map.of("FORGE_PROVIDER", "openai", "FORGE_BASE_URL", "http://127.0.0.1:8000/v1/")).defaultSpec();
        assertThat(proxied.baseUrl()).isEqualTo("http://127.0.0.1:8000/v1");
        assertThat(proxied.keyPresent()).isFalse();
        assertThat(proxied.keyRequired()).isFalse();
        ProviderSpec llama = config(Map.of("FORGE_PROVIDER", "llamacpp")).defaultSpec();
        assertThat(llama.baseUrl()).isEqualTo("http://127.0.0.1:8080/v1");
        assertThat(llama.model()).isEqualTo("default");
    }

    @Test
    void aVendorsUsualKeyIsNeverSentToAnotherUrlUnlessNamed() throws IOException {
        ProviderSpec proxied = config(Map.of("FORGE_PROVIDER", "openai", "FORGE_BASE_URL", "https://proxy.example/v1",
                "OPENAI_API_KEY", "sk-for-openai-only")).defaultSpec();
        assertThat(proxied.apiKey()).isNull();
        assertThat(proxied.apiKeyEnv()).isEqualTo("FORGE_API_KEY");
        assertThat(config(Map.of("FORGE_PROVIDER", "openai", "FORGE_BASE_URL", "https://proxy.example/v1",
                "FORGE_API_KEY", "sk-proxy")).defaultSpec().apiKey()).isEqualTo("sk-proxy");
        // a self-hosted server's own variable goes wherever that server runs
        assertThat(config(Map.of("FORGE_PROVIDER", "vllm", "FORGE_MODEL", "m", "FORGE_BASE_URL", "http://gpu-box:8000/v1",
                "VLLM_API_KEY", "v")).defaultSpec().apiKey()).isEqualTo("v");
        Files.writeString(data.resolve("providers.json"), """
                {"providers": {
                  "sim": {"preset": "sim"},
                  "proxied": {"preset": "gemini", "baseUrl": "https://gateway.example"},
                  "named": {"preset": "gemini", "baseUrl": "https://gateway.example", "apiKeyEnv": "GATEWAY_KEY"}}}
                """);
        ProvidersConfig file = config(Map.of("GEMINI_API_KEY", "for-google-only", "GATEWAY_KEY", "gw"));
        assertThat(file.find("proxied").orElseThrow().apiKey()).isNull();
        assertThat(file.find("named").orElseThrow().apiKey()).isEqualTo("gw");
    }

    @Test
    void geminiBaseUrlIsTheRootBeforeV1betaAndAGivenV1betaIsTakenOff() {
        assertThat(config(Map.of("FORGE_PROVIDER", "gemini", "FORGE_BASE_URL", "http://127.0.0.1:9000/v1beta/")).defaultSpec().baseUrl())
                .isEqualTo("http://127.0.0.1:9000");
    }

    @ParameterizedTest
    @CsvSource({"kimi", "openrouter", "vllm", "ollama"})
    void presetWithoutADefaultModelNeedsForgeModel(String preset) {
        assertThatThrownBy(() -> config(Map.of("FORGE_PROVIDER", preset, "FORGE_API_KEY", "k")))
                .hasMessageStartingWith("FORGE_MODEL is required for FORGE_PROVIDER=" + preset);
        assertThat(config(Map.of("FORGE_PROVIDER", preset, "FORGE_API_KEY", "k", "FORGE_MODEL", "m")).defaultSpec().model()).isEqualTo("m");
    }

    @Test
    void unknownProviderNamesEveryPreset() {
        assertThatThrownBy(() -> config(Map.of("FORGE_PROVIDER", "bedrock")))
                .hasMessage("FORGE_PROVIDER=bedrock is not supported: use sim, openai, gemini, anthropic, kimi, glm, deepseek, openrouter, vllm, llamacpp, ollama");
    }

    @Test
    void toolsDefaultToAllThePresetHasAndForgeToolsChoosesAmongThem() {
        assertThat(config(Map.of("FORGE_PROVIDER", "gemini", "GEMINI_API_KEY", "k")).defaultSpec().tools())
                .containsExactly("google_search", "url_context");
        assertThat(config(Map.of("FORGE_PROVIDER", "gemini", "GEMINI_API_KEY", "k", "FORGE_TOOLS", "url_context, google_search")).defaultSpec().tools())
                .containsExactly("google_search", "url_context");
        assertThat(config(Map.of("FORGE_PROVIDER", "gemini", "GEMINI_API_KEY", "k", "FORGE_TOOLS", "none")).defaultSpec().tools()).isEmpty();
        assertThat(config(Map.of("FORGE_PROVIDER", "glm", "ZHIPUAI_API_KEY", "k")).defaultSpec().tools()).containsExactly("web_search");
        assertThatThrownBy(() -> config(Map.of("FORGE_PROVIDER", "deepseek", "DEEPSEEK_API_KEY", "k", "FORGE_TOOLS", "web_search")))
                .hasMessage("FORGE_TOOLS: deepseek has no tool \"web_search\"; it has none");
    }

    @Test
    void theKeyNeverAppearsWhenASpecIsPrinted() {
        ProvidersConfig config = config(Map.of("FORGE_PROVIDER", "gemini", "GEMINI_API_KEY", "AIza-secret-123"));

        assertThat(config.toString()).doesNotContain("AIza-secret-123").contains("apiKey=(set)");
        assertThat(Settings.from(env(Map.of("FORGE_PROVIDER", "gemini", "GEMINI_API_KEY", "AIza-secret-123"))).toString())
                .doesNotContain("AIza-secret-123");
    }

    // ================================================================ the context window

    @ParameterizedTest
    @CsvSource({"sim, 131072", "openai, 128000", "gemini, 1048576", "glm, 200000", "deepseek, 128000", "ollama, 32768"})
    void withoutASettingTheContextWindowIsThePresetsModels(String preset, int tokens) {
        ProviderSpec spec = config(Map.of("FORGE_PROVIDER", preset, "FORGE_API_KEY", "k", "FORGE_MODEL", "m")).defaultSpec();

        assertThat(spec.contextWindow()).isEqualTo(tokens);
    }

    @Test
    void forgeContextWindowSetsTheEnvironmentProvidersWindowAndContextWindowAFileProvidersWindow() throws IOException {
        assertThat(config(Map.of("FORGE_CONTEXT_WINDOW", " 8192 ")).defaultSpec().contextWindow()).isEqualTo(8192);
        Files.writeString(data.resolve("providers.json"), """
                {"providers": {
                  "local": {"preset": "llamacpp", "contextWindow": 16384},
                  "cheap": {"preset": "deepseek"}}}
                """);

        ProvidersConfig config = config(Map.of());

        assertThat(config.find("local").orElseThrow().contextWindow()).isEqualTo(16384);
        assertThat(config.find("cheap").orElseThrow().contextWindow()).isEqualTo(128_000);
    }

    @Test
    void aForgeContextWindowThatIsNoNumberOfTokensFrom1024StopsTheStart() {
        for (String value : List.of("lots", "8k", "4096.5", "1023", "0", "-8192", "100000001")) {
            assertThatThrownBy(() -> config(Map.of("FORGE_CONTEXT_WINDOW", value))).as(value).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("FORGE_CONTEXT_WINDOW must be a whole number of tokens from 1024 to 100000000, was " + value);
        }
    }

    @Test
    void whetherAModelSeesImagesIsWhatItsPresetKnowsUnlessForgeVisionOrVisionSaysOtherwise() throws IOException {
        assertThat(config(Map.of("FORGE_PROVIDER", "sim")).defaultSpec().vision()).as("the simulation sees").isTrue();
        assertThat(config(Map.of("FORGE_PROVIDER", "deepseek", "DEEPSEEK_API_KEY", "k")).defaultSpec().vision()).isFalse();
        assertThat(config(Map.of("FORGE_PROVIDER", "openai", "OPENAI_API_KEY", "k", "FORGE_MODEL", "gpt-4o")).defaultSpec().vision()).isTrue();
        assertThat(config(Map.of("FORGE_PROVIDER", "openai", "OPENAI_API_KEY", "k", "FORGE_MODEL", "o3-mini")).defaultSpec().vision()).isFalse();
        assertThat(config(Map.of("FORGE_PROVIDER", "ollama", "FORGE_MODEL", "qwen2.5vl", "FORGE_VISION", "1")).defaultSpec().vision()).isTrue();
        assertThat(config(Map.of("FORGE_PROVIDER", "sim", "FORGE_VISION", "0")).defaultSpec().vision()).isFalse();
        assertThatThrownBy(() -> config(Map.of("FORGE_PROVIDER", "sim", "FORGE_VISION", "yes"))).hasMessageContaining("FORGE_VISION");

        Files.writeString(data.resolve("providers.json"), """
                {"providers": {
                  "router": {"preset": "openrouter", "model": "google/gemini-2.5-flash", "apiKeyEnv": "K", "vision": false},
                  "glm":    {"preset": "glm", "model": "glm-4.5v", "apiKeyEnv": "K"},
                  "local":  {"preset": "vllm", "model": "Qwen/Qwen2.5-VL-7B", "vision": true}}}
                """);
        ProvidersConfig config = config(Map.of("K", "k"));
        assertThat(config.find("router").orElseThrow().vision()).as("the file says otherwise").isFalse();
        assertThat(config.find("glm").orElseThrow().vision()).as("a GLM visual model").isTrue();
        assertThat(config.find("local").orElseThrow().vision()).isTrue();

        Files.writeString(data.resolve("providers.json"), """
                {"providers": {"local": {"preset": "vllm", "model": "m", "vision": "yes"}}}
                """);
        assertThatThrownBy(() -> config(Map.of())).hasMessageContaining("providers.local.vision must be true");
    }

    // ================================================================ the providers file

    @Test
    void providersJsonInTheDataFolderAddsNamedProvidersAndItsDefault() throws IOException {
        Files.writeString(data.resolve("providers.json"), """
                {"default": "fast",
                 "providers": {
                   "fast":  {"preset": "gemini", "model": "gemini-2.5-flash"},
                   "cheap": {"preset": "deepseek", "apiKeyEnv": "MY_DEEPSEEK_KEY"},
                   "local": {"preset": "llamacpp", "baseUrl": "http://127.0.0.1:8081/v1"},
                   "demo":  {"preset": "sim", "format": "gemini"}}}
                """);

        ProvidersConfig config = config(Map.of("GEMINI_API_KEY", "g", "MY_DEEPSEEK_KEY", "d"));

        assertThat(config.defaultName()).isEqualTo("fast");
        assertThat(config.providers()).extracting(ProviderSpec::name).containsExactly("fast", "cheap", "local", "demo");
        assertThat(config.find("cheap").orElseThrow().apiKey()).isEqualTo("d");
        assertThat(config.find("cheap").orElseThrow().apiKeyEnv()).isEqualTo("MY_DEEPSEEK_KEY");
        assertThat(config.find("cheap").orElseThrow().model()).isEqualTo("deepseek-chat");
        assertThat(config.find("local").orElseThrow().baseUrl()).isEqualTo("http://127.0.0.1:8081/v1");
        assertThat(config.find("demo").orElseThrow().simFormat()).isEqualTo("gemini");
        assertThat(config.file()).isEqualTo(data.resolve("providers.json"));
    }

    @Test
    void forgeConfigYamlFileIsReadToo() throws IOException {
        Path file = Files.writeString(data.resolve("forge.yaml"), """
                providers:
                  quick:
                    preset: gemini
                    tools: [url_context]
                    thoughts: false
                  glm:
                    preset: glm
                    tools: []
                """);

        ProvidersConfig config = config(Map.of("FORGE_CONFIG", file.toString(), "GEMINI_API_KEY", "g"));

        assertThat(config.defaultName()).isEqualTo("quick"); // no default: the first one
        ProviderSpec quick = config.defaultSpec();
        assertThat(quick.tools()).containsExactly("url_context");
        assertThat(quick.thoughts()).isFalse();
        ProviderSpec glm = config.find("glm").orElseThrow();
        assertThat(glm.tools()).isEmpty();
        assertThat(glm.keyPresent()).isFalse(); // listed, not the default: its calls fail until ZHIPUAI_API_KEY is set
        assertThat(glm.apiKeyEnv()).isEqualTo("ZHIPUAI_API_KEY");
    }

    @Test
    void environmentProviderOverridesTheFileAndBecomesTheDefault() throws IOException {
        Files.writeString(data.resolve("providers.json"), """
                {"default": "deepseek", "providers": {
                  "deepseek": {"preset": "deepseek", "model": "deepseek-reasoner"},
                  "other": {"preset": "ollama", "model": "qwen3"}}}
                """);

        ProvidersConfig config = config(Map.of("FORGE_PROVIDER", "deepseek", "FORGE_MODEL", "deepseek-chat", "DEEPSEEK_API_KEY", "k"));

        assertThat(config.defaultName()).isEqualTo("deepseek");
        assertThat(config.providers()).extracting(ProviderSpec::name).containsExactly("deepseek", "other");
        assertThat(config.defaultSpec().model()).isEqualTo("deepseek-chat");
    }

    @Test
    void aKeyInTheFileIsRefused() throws IOException {
        Files.writeString(data.resolve("providers.json"), "{\"providers\": {\"x\": {\"preset\": \"openai\", \"apiKey\": \"sk-oops\"}}}");

        assertThatThrownBy(() -> config(Map.of()))
                .hasMessageEndingWith("providers.x.apiKey: keys are read only from environment variables, never from the file:"
                        + " name the variable with \"apiKeyEnv\"")
                .message().doesNotContain("sk-oops");
    }

    @Test
    void theDefaultFromTheFileMustHaveItsKey() throws IOException {
        Files.writeString(data.resolve("providers.json"), "{\"providers\": {\"main\": {\"preset\": \"gemini\"}}}");

        assertThatThrownBy(() -> config(Map.of()))
                .hasMessageEndingWith(": the default provider main (gemini) needs an API key in GEMINI_API_KEY");
    }

    @Test
    void fileMistakesSayWhere() throws IOException {
        Path file = data.resolve("providers.json");
        List<String[]> cases = List.of(
                new String[]{"{\"providers\": {}}", "\"providers\" must be an object of name: {preset, …}, with at least one"},
                new String[]{"{\"providers\": {\"a\": {\"preset\": \"nope\"}}}", "providers.a.preset=nope is not supported: use sim, openai"},
                new String[]{"{\"providers\": {\"a\": {\"model\": \"m\"}}}", "providers.a.preset is required"},
                new String[]{"{\"providers\": {\"a\": {\"preset\": \"sim\", \"modle\": \"m\"}}}", "providers.a: unknown field \"modle\""},
                new String[]{"{\"providers\": {\"Bad Name\": {\"preset\": \"sim\"}}}", "provider name \"Bad Name\" must be"},
                new String[]{"{\"default\": \"b\", \"providers\": {\"a\": {\"preset\": \"sim\"}}}", "\"default\" must name one of the providers [a]"},
                new String[]{"{\"providers\": {\"a\": {\"preset\": \"vllm\"}}}", "providers.a.model is required for preset vllm"},
                new String[]{"{\"providers\": {\"a\": {\"preset\": \"openai\", \"baseUrl\": \"ftp://x\"}}}", "providers.a.baseUrl must start with http"},
                new String[]{"{\"providers\": {\"a\": {\"preset\": \"openai\", \"format\": \"gemini\"}}}", "providers.a.format is for the simulated provider"},
                new String[]{"{\"providers\": {\"a\": {\"preset\": \"sim\", \"apiKeyEnv\": \"not a name\"}}}", "providers.a.apiKeyEnv must be"},
                new String[]{"{\"providers\": {\"a\": {\"preset\": \"sim\", \"contextWindow\": 512}}}",
                        "providers.a.contextWindow must be a whole number of tokens from 1024 to 100000000, was 512"},
                new String[]{"{\"providers\": {\"a\": {\"preset\": \"sim\", \"contextWindow\": \"8192\"}}}",
                        "providers.a.contextWindow must be a whole number of tokens, was \"8192\""},
                new String[]{"{\"providers\": [", "is not valid JSON"});
        for (String[] c : cases) {
            Files.writeString(file, c[0]);
            assertThatThrownBy(() -> config(Map.of())).as(c[0]).hasMessageContaining(c[1]).hasMessageContaining(file.toString());
        }
    }

    @Test
    void missingForgeConfigFileStopsTheStart() {
        assertThatThrownBy(() -> config(Map.of("FORGE_CONFIG", data.resolve("nope.json").toString())))
                .hasMessageEndingWith("nope.json is not a readable file");
    }

    // ================================================================ Settings keeps working

    @Test
    void settingsProviderIsTheDefaultsPresetAndTheOldFieldsKeepTheirMeaning() {
        Settings settings = Settings.from(env(Map.of("FORGE_PROVIDER", "GEMINI", "FORGE_API_KEY", "k", "FORGE_MODEL", "gemini-2.5-pro")));

        assertThat(settings.provider()).isEqualTo("gemini");
        assertThat(settings.model()).isEqualTo("gemini-2.5-pro");
        assertThat(settings.apiKey()).isEqualTo("k");
        assertThat(settings.providers().defaultSpec().model()).isEqualTo("gemini-2.5-pro");
        assertThat(Settings.from(env(Map.of())).provider()).isEqualTo("sim");
    }

    private ProvidersConfig config(Map<String, String> env) {
        return ProvidersConfig.from(env, data);
    }

    private static Map<String, String> with(Map<String, String> env, String variable, String value) {
        Map<String, String> more = new HashMap<>(env);
        more.put(variable, value);
        return more;
    }

    private Map<String, String> env(Map<String, String> values) {
        Map<String, String> env = new HashMap<>(values);
        env.put("FORGE_DATA_DIR", data.toString());
        return env;
    }
}
