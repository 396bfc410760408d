package dev.skillforge.server.provider;

import dev.skillforge.server.error.ConfigurationException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The providers SkillForge knows by name ({@code FORGE_PROVIDER}, or {@code preset} in the providers
 * file): which wire format each speaks, where it lives, which environment variable usually holds its
 * key, and its default model. What each sends and reads on the wire is decided where the clients are
 * built ({@code ProviderFactory}); this is only the catalogue.
 */
public enum ProviderPreset {

    /** The simulated provider, in-process on a loopback port: OpenAI's, Gemini's or Anthropic's wire format. It sees images. */
    SIM("sim", Wire.SIM, null, List.of(), "skillforge-sim-1", false, 131_072, ".*"),
    /** GPT-4o, GPT-4.1, GPT-4.5, GPT-5 and the o1, o3 and o4 reasoning models (not the -mini o1 and o3) see images. */
    OPENAI("openai", Wire.OPENAI_CHAT, "https://api.openai.com/v1", List.of("OPENAI_API_KEY"), "gpt-4o-mini", true, 128_000,
            "(chatgpt-4o|gpt-4o|gpt-4\\.1|gpt-4\\.5|gpt-4-turbo|gpt-5|o1(?!-mini)|o3(?!-mini)|o4).*"),
    /** Gemini's native API; the base URL is the root before {@code /v1beta}. Every Gemini model sees images. */
    GEMINI("gemini", Wire.GEMINI, "https://generativelanguage.googleapis.com", List.of("GEMINI_API_KEY", "GOOGLE_API_KEY"),
            "gemini-2.5-flash", true, 1_048_576, "gemini-.*"),
    /**
     * Anthropic's Messages API; the base URL is the root before {@code /v1}. The default model is the
     * current Sonnet (README, Anthropic), with its 1M-token window. Every Claude from Claude 3 on sees images.
     */
    ANTHROPIC("anthropic", Wire.ANTHROPIC, "https://api.anthropic.com", List.of("ANTHROPIC_API_KEY"), "claude-sonnet-5-5", true,
            1_000_000, "claude-(?!2|instant).*"),
    /** Moonshot's vision models: those named for it, {@code kimi-latest} and Kimi K2.5. */
    KIMI("kimi", Wire.OPENAI_CHAT, "https://api.moonshot.ai/v1", List.of("MOONSHOT_API_KEY"), null, true, 131_072,
            "(.*vision.*|kimi-latest.*|kimi-k2\\.5.*)"),
    /** Zhipu's visual models carry a v: {@code glm-4v}, {@code glm-4.5v}, {@code glm-4.6v}… */
    GLM("glm", Wire.OPENAI_CHAT, "https://open.bigmodel.cn/api/paas/v4", List.of("ZHIPUAI_API_KEY"), "glm-4.6", true, 200_000,
            "glm-\\d(\\.\\d)?v.*"),
    /** DeepSeek's chat API takes text only. */
    DEEPSEEK("deepseek", Wire.OPENAI_CHAT, "https://api.deepseek.com", List.of("DEEPSEEK_API_KEY"), "deepseek-chat", true, 128_000, null),
    // Routers and self-hosted servers run any model: whether it sees is for FORGE_VISION (or "vision") to say.
    OPENROUTER("openrouter", Wire.OPENAI_CHAT, "https://openrouter.ai/api/v1", List.of("OPENROUTER_API_KEY"), null, true, 128_000, null),
    // Self-hosted servers: the window is whatever the server was started with; 32k is a guess to override.
    VLLM("vllm", Wire.OPENAI_CHAT, "http://127.0.0.1:8000/v1", List.of("VLLM_API_KEY"), null, false, 32_768, null),
    /** llama.cpp's {@code llama-server}: its default port is 8080, SkillForge's too; move one of them. */
    LLAMACPP("llamacpp", Wire.OPENAI_CHAT, "http://127.0.0.1:8080/v1", List.of("LLAMA_API_KEY"), "default", false, 32_768, null),
    OLLAMA("ollama", Wire.OPENAI_CHAT, "http://127.0.0.1:11434/v1", List.of("OLLAMA_API_KEY"), null, false, 32_768, null);

    /** The wire format a preset speaks. */
    public enum Wire { SIM, OPENAI_CHAT, GEMINI, ANTHROPIC }

    private final String id;
    private final Wire wire;
    private final String defaultBaseUrl;
    private final List<String> keyVariables;
    private final String defaultModel;
    private final boolean hosted;
    private final int defaultContextWindow;
    private final Pattern seeingModels;

    ProviderPreset(String id, Wire wire, String defaultBaseUrl, List<String> keyVariables, String defaultModel, boolean hosted,
                   int defaultContextWindow, String seeingModels) {
        this.id = id;
        this.wire = wire;
        this.defaultBaseUrl = defaultBaseUrl;
        this.keyVariables = keyVariables;
        this.defaultModel = defaultModel;
        this.hosted = hosted;
        this.defaultContextWindow = defaultContextWindow;
        this.seeingModels = seeingModels == null ? null : Pattern.compile(seeingModels);
    }

    /** The name used in settings: {@code sim}, {@code openai}, {@code gemini}, … */
    public String id() {
        return id;
    }

    public Wire wire() {
        return wire;
    }

    /** The base URL when none is configured ({@code null} for the simulation, which picks its own port). */
    public String defaultBaseUrl() {
        return defaultBaseUrl;
    }

    /** The environment variables that usually hold the key, in the order they are looked at. */
    public List<String> keyVariables() {
        return keyVariables;
    }

    /** The model when none is configured, or {@code null} when one must be named (the vendor's names change too often). */
    public String defaultModel() {
        return defaultModel;
    }

    /** A hosted service: at its own URL it needs a key. Self-hosted servers take one only if started with one. */
    public boolean hosted() {
        return hosted;
    }

    /**
     * The context window, in tokens, when none is configured: the default model's (a guess for
     * self-hosted servers, whose window is how they were started).
     */
    public int defaultContextWindow() {
        return defaultContextWindow;
    }

    /**
     * Whether {@code model} sees images, as far as the preset knows its vendor's models (a model name in any case, with or
     * without a vendor prefix such as {@code google/}); {@code FORGE_VISION} or {@code "vision"} says otherwise.
     */
    public boolean seesImages(String model) {
        if (seeingModels == null) {
            return false;
        }
        String name = model.toLowerCase(Locale.ROOT);
        return seeingModels.matcher(name.substring(name.lastIndexOf('/') + 1)).matches();
    }

    /**
     * The preset named {@code value} (any case).
     *
     * @param variable what to name in the error, e.g. {@code FORGE_PROVIDER}
     */
    public static ProviderPreset parse(String value, String variable) {
        String wanted = value.strip().toLowerCase(Locale.ROOT);
        for (ProviderPreset preset : values()) {
            if (preset.id.equals(wanted)) {
                return preset;
            }
        }
        throw new ConfigurationException(variable + "=" + value + " is not supported: use " + names());
    }

    /** All ids, for messages: {@code sim, openai, gemini, …}. */
    public static String names() {
        return Arrays.stream(values()).map(ProviderPreset::id).collect(Collectors.joining(", "));
    }
}
