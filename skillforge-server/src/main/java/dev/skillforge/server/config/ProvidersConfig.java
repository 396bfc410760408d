package dev.skillforge.server.config;

import dev.skillforge.server.provider.AnthropicSettings;
import dev.skillforge.server.provider.ProviderSpec;
import dev.skillforge.server.provider.ProviderPreset;
import dev.skillforge.server.error.ConfigurationException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skillforge.core.context.ContextWindow;
import dev.skillforge.server.json.Json;
import dev.skillforge.server.price.PriceTable;
import dev.skillforge.server.price.TokenPrices;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.schema.CoreSchema;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Every provider the server can use, by name, and the default one.
 *
 * <p>Two sources, the environment winning (environment variables override a config file):
 * <ul>
 *   <li>The {@code FORGE_*} variables describe one provider: {@code FORGE_PROVIDER} (a preset id),
 *       {@code FORGE_MODEL}, {@code FORGE_BASE_URL}, {@code FORGE_API_KEY} (else the preset's usual
 *       variable, e.g. {@code GEMINI_API_KEY}, which for a hosted preset is read only at the vendor's
 *       own URL), {@code FORGE_TOOLS}, {@code FORGE_SIM_FORMAT}, {@code FORGE_VISION}, and for Anthropic's format {@code FORGE_MAX_TOKENS},
 *       {@code FORGE_THINKING_BUDGET}, {@code FORGE_CACHE_TTL}. It is
 *       named by its preset id and is the default. Without {@code FORGE_PROVIDER} it is {@code openai}
 *       when {@code FORGE_API_KEY} is set; otherwise there is none, unless there is no file either,
 *       and then it is {@code sim}.</li>
 *   <li>A providers file: {@code FORGE_CONFIG} (JSON, or YAML when it ends in {@code .yaml}/{@code .yml}),
 *       else {@code FORGE_DATA_DIR/providers.json} if it exists:
 *       <pre>{@code
 * {"default": "fast",
 *  "providers": {
 *    "fast":  {"preset": "gemini", "model": "gemini-2.5-flash"},
 *    "cheap": {"preset": "deepseek", "apiKeyEnv": "MY_DEEPSEEK_KEY"},
 *    "local": {"preset": "llamacpp", "baseUrl": "http://127.0.0.1:8081/v1"},
 *    "demo":  {"preset": "sim", "format": "gemini"}}}
 *       }</pre>
 *       Fields: {@code preset} (required), {@code model}, {@code baseUrl}, {@code apiKeyEnv} (the
 *       variable holding the key; default the preset's usual one), {@code tools}, {@code thoughts}
 *       (Gemini, Anthropic), {@code format} (sim), {@code contextWindow} (tokens; default the preset's, for the
 *       {@code FORGE_*} provider {@code FORGE_CONTEXT_WINDOW}), {@code vision} (whether the model sees images; default
 *       what the preset knows of the model, for the {@code FORGE_*} provider {@code FORGE_VISION}), for Anthropic's format {@code maxTokens},
 *       {@code thinkingBudget}, {@code cacheTtl} ({@code 5m}, {@code 1h}) and {@code cacheBreakpoints}
 *       ({@code automatic}, {@code explicit}), and {@code prices} (dollars per million tokens: {@code input},
 *       {@code cachedInput}, {@code cacheWrite}, {@code output}; default the bundled {@link PriceTable}'s). A key
 *       is never accepted in the file.</li>
 * </ul>
 * Everything is checked at start; a wrong value stops the server with a message naming where it is.
 */
public record ProvidersConfig(List<ProviderSpec> providers, String defaultName, Path file) {

    public static final String FILE_NAME = "providers.json";

    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9._-]{0,63}");
    private static final Pattern VARIABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");
    private static final Set<String> TOP_LEVEL_FIELDS = Set.of("default", "providers");
    private static final Set<String> ENTRY_FIELDS = Set.of("preset", "model", "baseUrl", "apiKeyEnv", "tools", "thoughts", "format",
            "contextWindow", "maxTokens", "thinkingBudget", "cacheTtl", "cacheBreakpoints", "prices", "vision");
    private static final List<String> ANTHROPIC_FIELDS = List.of("maxTokens", "thinkingBudget", "cacheTtl", "cacheBreakpoints");
    private static final List<String> ANTHROPIC_VARIABLES = List.of("FORGE_MAX_TOKENS", "FORGE_THINKING_BUDGET", "FORGE_CACHE_TTL");
    private static final List<String> PRICE_FIELDS = List.of("input", "cachedInput", "cacheWrite", "output");
    private static final int MAX_CONTEXT_WINDOW = 100_000_000;
    private static final int MAX_FILE_BYTES = 1024 * 1024;

    public ProvidersConfig {
        providers = List.copyOf(providers);
        if (providers.stream().noneMatch(p -> p.name().equals(defaultName))) {
            throw new ConfigurationException("the default provider " + defaultName + " is not configured");
        }
    }

    public static ProvidersConfig from(Map<String, String> env, Path dataDir) {
        Path file = configFile(env, dataDir);
        String where = file == null ? null : (blankToNull(env.get("FORGE_CONFIG")) != null ? "FORGE_CONFIG " : "") + file;
        LinkedHashMap<String, ProviderSpec> fromFile = new LinkedHashMap<>();
        String fileDefault = file == null ? null : readFile(file, where, env, fromFile);
        ProviderSpec fromEnv = environmentProvider(env, !fromFile.isEmpty());

        List<ProviderSpec> all = new ArrayList<>();
        String defaultName;
        if (fromEnv != null) {
            all.add(fromEnv);
            fromFile.remove(fromEnv.name()); // the environment overrides the file
            defaultName = fromEnv.name();
        } else {
            defaultName = fileDefault != null ? fileDefault : fromFile.keySet().iterator().next();
        }
        all.addAll(fromFile.values());
        for (ProviderSpec spec : all) {
            if (spec.name().equals(defaultName) && spec.keyRequired() && !spec.keyPresent()) {
                throw new ConfigurationException(missingKey(spec, fromEnv == spec, where));
            }
        }
        return new ProvidersConfig(all, defaultName, file);
    }

    public ProviderSpec defaultSpec() {
        return find(defaultName).orElseThrow();
    }

    public Optional<ProviderSpec> find(String name) {
        return providers.stream().filter(p -> p.name().equals(name)).findFirst();
    }

    // ---------------------------------------------------------------- the FORGE_* provider

    private static ProviderSpec environmentProvider(Map<String, String> env, boolean fileHasProviders) {
        String named = blankToNull(env.get("FORGE_PROVIDER"));
        String forgeKey = blankToNull(env.get("FORGE_API_KEY"));
        String simFormat = simFormat(blankToNull(env.get("FORGE_SIM_FORMAT")), "FORGE_SIM_FORMAT");
        ProviderPreset preset;
        if (named != null) {
            preset = ProviderPreset.parse(named, "FORGE_PROVIDER");
        } else if (forgeKey != null) {
            preset = ProviderPreset.OPENAI;
        } else if (fileHasProviders) {
            return null;
        } else {
            preset = ProviderPreset.SIM;
        }
        String variableOf = "FORGE_PROVIDER=" + preset.id();
        String model = preset == ProviderPreset.SIM ? preset.defaultModel() : blankToNull(env.get("FORGE_MODEL"));
        if (model == null) {
            model = requireDefaultModel(preset, "FORGE_MODEL is required for " + variableOf);
        }
        String baseUrl = baseUrl(preset, blankToNull(env.get("FORGE_BASE_URL")), "FORGE_BASE_URL");
        String keyVariable = null;
        String key = null;
        if (preset != ProviderPreset.SIM) {
            if (forgeKey != null) {
                keyVariable = "FORGE_API_KEY";
                key = forgeKey;
            } else if (readsUsualVariables(preset, baseUrl)) {
                keyVariable = preset.keyVariables().isEmpty() ? "FORGE_API_KEY" : preset.keyVariables().getFirst();
                for (String variable : preset.keyVariables()) {
                    if (blankToNull(env.get(variable)) != null) {
                        keyVariable = variable;
                        key = env.get(variable).strip();
                        break;
                    }
                }
            } else {
                keyVariable = "FORGE_API_KEY";
            }
        }
        List<String> tools = tools(preset, blankToNull(env.get("FORGE_TOOLS")), "FORGE_TOOLS");
        String format = preset == ProviderPreset.SIM ? (simFormat == null ? ProviderSpec.SIM_FORMAT_OPENAI : simFormat) : null;
        AnthropicSettings anthropic = environmentAnthropic(env, speaksAnthropic(preset, format));
        String vision = blankToNull(env.get("FORGE_VISION"));
        return new ProviderSpec(preset.id(), preset, model, baseUrl, keyVariable, key, format,
                tools, true, contextWindow(env.get("FORGE_CONTEXT_WINDOW"), preset, "FORGE_CONTEXT_WINDOW"), anthropic,
                prices(preset, model, anthropic, null),
                vision == null ? preset.seesImages(model) : Settings.integer(env, "FORGE_VISION", 0, 0, 1) == 1);
    }

    /** Anthropic's options from {@code FORGE_MAX_TOKENS}, {@code FORGE_THINKING_BUDGET} and {@code FORGE_CACHE_TTL}. */
    private static AnthropicSettings environmentAnthropic(Map<String, String> env, boolean applies) {
        if (!applies) {
            for (String variable : ANTHROPIC_VARIABLES) {
                if (blankToNull(env.get(variable)) != null) {
                    throw new ConfigurationException(variable + " is a setting of Anthropic's format: it applies to FORGE_PROVIDER=anthropic"
                            + " (or the simulation with FORGE_SIM_FORMAT=anthropic)");
                }
            }
            return null;
        }
        int maxTokens = Settings.integer(env, "FORGE_MAX_TOKENS", AnthropicSettings.DEFAULT_MAX_TOKENS, 1, AnthropicSettings.MAX_MAX_TOKENS);
        Integer budget = blankToNull(env.get("FORGE_THINKING_BUDGET")) == null ? null
                : Settings.integer(env, "FORGE_THINKING_BUDGET", 0, AnthropicSettings.MIN_THINKING_BUDGET, AnthropicSettings.MAX_MAX_TOKENS);
        if (budget != null && budget >= maxTokens) {
            throw new ConfigurationException("FORGE_THINKING_BUDGET=" + budget + " must be less than FORGE_MAX_TOKENS (" + maxTokens
                    + "): thinking counts toward the output limit");
        }
        String ttl = blankToNull(env.get("FORGE_CACHE_TTL"));
        return new AnthropicSettings(maxTokens, budget, ttl == null ? AnthropicSettings.TTL_5M : AnthropicSettings.ttl(ttl, "FORGE_CACHE_TTL"),
                false);
    }

    /** The anthropic preset, and the simulation in Anthropic's format. */
    private static boolean speaksAnthropic(ProviderPreset preset, String simFormat) {
        return preset == ProviderPreset.ANTHROPIC || ProviderSpec.SIM_FORMAT_ANTHROPIC.equals(simFormat);
    }

    /** The configured prices, else the bundled table's for the model (with the 1-hour write price when writes are kept an hour), else unknown. */
    private static TokenPrices prices(ProviderPreset preset, String model, AnthropicSettings anthropic, TokenPrices configured) {
        if (configured != null) {
            return configured;
        }
        return PriceTable.bundled().find(preset.id(), model)
                .map(entry -> anthropic != null && anthropic.hourLongCache() ? entry.withHourLongWrites() : entry.prices())
                .orElse(null);
    }

    /** A configured context window (tokens), or the preset's default when {@code value} is absent. */
    private static int contextWindow(String value, ProviderPreset preset, String where) {
        String given = blankToNull(value);
        if (given == null) {
            return preset.defaultContextWindow();
        }
        try {
            int tokens = Integer.parseInt(given.strip());
            if (tokens >= ContextWindow.MIN_WINDOW_TOKENS && tokens <= MAX_CONTEXT_WINDOW) {
                return tokens;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new ConfigurationException(where + " must be a whole number of tokens from " + ContextWindow.MIN_WINDOW_TOKENS
                + " to " + MAX_CONTEXT_WINDOW + ", was " + given);
    }

    // ---------------------------------------------------------------- the providers file

    private static Path configFile(Map<String, String> env, Path dataDir) {
        String configured = blankToNull(env.get("FORGE_CONFIG"));
        if (configured != null) {
            Path file = Path.of(configured.strip());
            if (!Files.isRegularFile(file)) {
                throw new ConfigurationException("FORGE_CONFIG=" + configured + " is not a readable file");
            }
            return file;
        }
        Path file = dataDir.resolve(FILE_NAME);
        return Files.isRegularFile(file) ? file : null;
    }

    /** Reads the file's providers into {@code into}; returns its default name, or {@code null}. */
    private static String readFile(Path file, String where, Map<String, String> env, Map<String, ProviderSpec> into) {
        JsonNode root = parse(file, where);
        if (!(root instanceof ObjectNode object)) {
            throw new ConfigurationException(where + ": the file must hold an object with \"providers\"");
        }
        for (Iterator<String> fields = object.fieldNames(); fields.hasNext(); ) {
            String field = fields.next();
            if (!TOP_LEVEL_FIELDS.contains(field)) {
                throw new ConfigurationException(where + ": unknown field \"" + field + "\": use \"default\" and \"providers\"");
            }
        }
        JsonNode providers = object.get("providers");
        if (!(providers instanceof ObjectNode entries) || entries.isEmpty()) {
            throw new ConfigurationException(where + ": \"providers\" must be an object of name: {preset, …}, with at least one");
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = entries.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            String name = entry.getKey();
            if (!NAME.matcher(name).matches()) {
                throw new ConfigurationException(where + ": provider name \"" + name
                        + "\" must be 1-64 characters of a-z, 0-9, '.', '_' and '-', starting with a letter or digit");
            }
            into.put(name, fileEntry(name, entry.getValue(), where + ": providers." + name, env));
        }
        JsonNode defaultNode = object.get("default");
        if (defaultNode == null || defaultNode.isNull()) {
            return null;
        }
        if (!defaultNode.isTextual() || !into.containsKey(defaultNode.asText())) {
            throw new ConfigurationException(where + ": \"default\" must name one of the providers " + into.keySet()
                    + ", was " + defaultNode);
        }
        return defaultNode.asText();
    }

    private static ProviderSpec fileEntry(String name, JsonNode node, String at, Map<String, String> env) {
        if (!(node instanceof ObjectNode entry)) {
            throw new ConfigurationException(at + " must be an object with at least \"preset\"");
        }
        for (Iterator<String> fields = entry.fieldNames(); fields.hasNext(); ) {
            String field = fields.next();
            if (field.toLowerCase(Locale.ROOT).contains("key") && !field.equals("apiKeyEnv")) {
                throw new ConfigurationException(at + "." + field + ": keys are read only from environment variables,"
                        + " never from the file: name the variable with \"apiKeyEnv\"");
            }
            if (!ENTRY_FIELDS.contains(field)) {
                throw new ConfigurationException(at + ": unknown field \"" + field + "\": use " + ENTRY_FIELDS);
            }
        }
        String presetName = text(entry, "preset", at);
        if (presetName == null) {
            throw new ConfigurationException(at + ".preset is required: one of " + ProviderPreset.names());
        }
        ProviderPreset preset = ProviderPreset.parse(presetName, at + ".preset");
        String model = preset == ProviderPreset.SIM ? preset.defaultModel() : text(entry, "model", at);
        if (model == null) {
            model = requireDefaultModel(preset, at + ".model is required for preset " + preset.id());
        }
        String baseUrl = baseUrl(preset, text(entry, "baseUrl", at), at + ".baseUrl");
        String keyVariable = text(entry, "apiKeyEnv", at);
        String key = null;
        if (keyVariable != null) {
            if (!VARIABLE.matcher(keyVariable).matches()) {
                throw new ConfigurationException(at + ".apiKeyEnv must be an environment variable name, was " + keyVariable);
            }
            key = blankToNull(env.get(keyVariable));
        } else if (preset != ProviderPreset.SIM && !preset.keyVariables().isEmpty() && readsUsualVariables(preset, baseUrl)) {
            keyVariable = preset.keyVariables().getFirst();
            for (String variable : preset.keyVariables()) {
                if (blankToNull(env.get(variable)) != null) {
                    keyVariable = variable;
                    key = env.get(variable);
                    break;
                }
            }
        }
        JsonNode toolsNode = entry.get("tools");
        List<String> tools;
        if (toolsNode == null || toolsNode.isNull()) {
            tools = defaultTools(preset);
        } else {
            if (!toolsNode.isArray()) {
                throw new ConfigurationException(at + ".tools must be a list, e.g. [\"google_search\"] or []");
            }
            List<String> named = new ArrayList<>();
            for (JsonNode tool : toolsNode) {
                named.add(tool.asText());
            }
            tools = checkTools(preset, named, at + ".tools");
        }
        JsonNode thoughtsNode = entry.get("thoughts");
        if (thoughtsNode != null && !thoughtsNode.isBoolean()) {
            throw new ConfigurationException(at + ".thoughts must be true or false");
        }
        if (thoughtsNode != null && preset != ProviderPreset.GEMINI && preset != ProviderPreset.ANTHROPIC) {
            throw new ConfigurationException(at + ".thoughts is a Gemini and Anthropic setting; preset " + preset.id() + " has none");
        }
        String format = text(entry, "format", at);
        if (format != null && preset != ProviderPreset.SIM) {
            throw new ConfigurationException(at + ".format is for the simulated provider (preset sim) only");
        }
        format = preset == ProviderPreset.SIM ? simFormat(format == null ? ProviderSpec.SIM_FORMAT_OPENAI : format, at + ".format") : null;
        JsonNode windowNode = entry.get("contextWindow");
        if (windowNode != null && !windowNode.isIntegralNumber()) {
            throw new ConfigurationException(at + ".contextWindow must be a whole number of tokens, was " + windowNode);
        }
        int window = contextWindow(windowNode == null ? null : windowNode.asText(), preset, at + ".contextWindow");
        AnthropicSettings anthropic = fileAnthropic(entry, speaksAnthropic(preset, format), at);
        JsonNode visionNode = entry.get("vision");
        if (visionNode != null && !visionNode.isBoolean()) {
            throw new ConfigurationException(at + ".vision must be true (the model sees images) or false, was " + visionNode);
        }
        return new ProviderSpec(name, preset, model, baseUrl, keyVariable, key == null ? null : key.strip(), format, tools,
                thoughtsNode == null || thoughtsNode.booleanValue(), window, anthropic, prices(preset, model, anthropic, filePrices(entry, at)),
                visionNode == null ? preset.seesImages(model) : visionNode.booleanValue());
    }

    /** Anthropic's options from an entry's {@code maxTokens}, {@code thinkingBudget}, {@code cacheTtl} and {@code cacheBreakpoints}. */
    private static AnthropicSettings fileAnthropic(ObjectNode entry, boolean applies, String at) {
        if (!applies) {
            for (String field : ANTHROPIC_FIELDS) {
                if (entry.has(field)) {
                    throw new ConfigurationException(at + "." + field + " is a setting of Anthropic's format: it applies to preset"
                            + " anthropic (or sim with \"format\": \"anthropic\")");
                }
            }
            return null;
        }
        int maxTokens = wholeNumber(entry, "maxTokens", at, AnthropicSettings.DEFAULT_MAX_TOKENS, 1);
        Integer budget = entry.has("thinkingBudget")
                ? wholeNumber(entry, "thinkingBudget", at, 0, AnthropicSettings.MIN_THINKING_BUDGET) : null;
        if (budget != null && budget >= maxTokens) {
            throw new ConfigurationException(at + ".thinkingBudget (" + budget + ") must be less than maxTokens (" + maxTokens
                    + "): thinking counts toward the output limit");
        }
        String ttl = text(entry, "cacheTtl", at);
        String breakpoints = text(entry, "cacheBreakpoints", at);
        if (breakpoints != null && !breakpoints.equals(AnthropicSettings.AUTOMATIC) && !breakpoints.equals(AnthropicSettings.EXPLICIT)) {
            throw new ConfigurationException(at + ".cacheBreakpoints must be \"automatic\" (top-level cache_control) or \"explicit\""
                    + " (on the system prompt and the newest message), was " + breakpoints);
        }
        return new AnthropicSettings(maxTokens, budget, ttl == null ? AnthropicSettings.TTL_5M : AnthropicSettings.ttl(ttl, at + ".cacheTtl"),
                AnthropicSettings.EXPLICIT.equals(breakpoints));
    }

    /** A whole-number field from {@code minimum} to {@link AnthropicSettings#MAX_MAX_TOKENS}, or {@code fallback} when absent. */
    private static int wholeNumber(ObjectNode entry, String field, String at, int fallback, int minimum) {
        JsonNode node = entry.get(field);
        if (node == null || node.isNull()) {
            return fallback;
        }
        if (!node.isIntegralNumber() || node.asLong() < minimum || node.asLong() > AnthropicSettings.MAX_MAX_TOKENS) {
            throw new ConfigurationException(at + "." + field + " must be a whole number of tokens from " + minimum + " to "
                    + AnthropicSettings.MAX_MAX_TOKENS + ", was " + node);
        }
        return node.asInt();
    }

    /** An entry's own {@code prices}, all four of them, or {@code null}. */
    private static TokenPrices filePrices(ObjectNode entry, String at) {
        JsonNode node = entry.get("prices");
        if (node == null || node.isNull()) {
            return null;
        }
        if (!(node instanceof ObjectNode prices)) {
            throw new ConfigurationException(at + ".prices must be an object of dollars per million tokens: " + PRICE_FIELDS);
        }
        for (Iterator<String> fields = prices.fieldNames(); fields.hasNext(); ) {
            String field = fields.next();
            if (!PRICE_FIELDS.contains(field)) {
                throw new ConfigurationException(at + ".prices: unknown field \"" + field + "\": use " + PRICE_FIELDS);
            }
        }
        String where = at + ".prices";
        return new TokenPrices(PriceTable.price(prices, "input", where), PriceTable.price(prices, "cachedInput", where),
                PriceTable.price(prices, "cacheWrite", where), PriceTable.price(prices, "output", where));
    }

    private static JsonNode parse(Path file, String where) {
        String text;
        try {
            if (Files.size(file) > MAX_FILE_BYTES) {
                throw new ConfigurationException(where + " is larger than 1 MiB");
            }
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ConfigurationException(where + " could not be read: " + e.getMessage());
        }
        String lower = file.getFileName().toString().toLowerCase(Locale.ROOT);
        if (lower.endsWith(".yaml") || lower.endsWith(".yml")) {
            try {
                LoadSettings settings = LoadSettings.builder().setLabel(file.toString()).setSchema(new CoreSchema())
                        .setAllowDuplicateKeys(false).setAllowRecursiveKeys(false).setMaxAliasesForCollections(10)
                        .setBufferSize(text.length() + 1).build();
                Object loaded = new Load(settings).loadFromString(text);
                return Json.MAPPER.valueToTree(loaded);
            } catch (YamlEngineException | IllegalArgumentException e) {
                throw new ConfigurationException(where + " is not valid YAML: " + oneLine(e.getMessage()));
            }
        }
        try {
            return Json.parse(text);
        } catch (IOException e) {
            throw new ConfigurationException(where + " is not valid JSON: " + oneLine(e.getMessage()));
        }
    }

    // ---------------------------------------------------------------- shared checks

    /**
     * A hosted preset's usual key variable (say {@code OPENAI_API_KEY}) is read only at the vendor's
     * own URL: a key the environment holds for a vendor is never sent to a proxy or another server
     * unless asked for by name ({@code FORGE_API_KEY}, {@code apiKeyEnv}). A self-hosted server's
     * variable is its own, wherever it runs.
     */
    private static boolean readsUsualVariables(ProviderPreset preset, String baseUrl) {
        return !preset.hosted() || java.util.Objects.equals(baseUrl, preset.defaultBaseUrl());
    }

    private static String requireDefaultModel(ProviderPreset preset, String message) {
        if (preset.defaultModel() == null) {
            throw new ConfigurationException(message + ": " + preset.id()
                    + " has no default model, name one of the models it serves");
        }
        return preset.defaultModel();
    }

    private static String baseUrl(ProviderPreset preset, String configured, String variable) {
        if (configured == null) {
            return preset.defaultBaseUrl();
        }
        String url = configured.strip();
        if (!url.matches("(?i)https?://[^\\s]+")) {
            throw new ConfigurationException(variable + " must start with http:// or https://, was " + configured);
        }
        while (url.endsWith("/")) {
            url = url.substring(0, url.length() - 1);
        }
        if (preset == ProviderPreset.GEMINI && url.endsWith("/v1beta")) {
            url = url.substring(0, url.length() - "/v1beta".length()); // the root before /v1beta, as documented
        }
        if (preset == ProviderPreset.ANTHROPIC && url.endsWith("/v1")) {
            url = url.substring(0, url.length() - "/v1".length()); // the root before /v1, as documented
        }
        return url;
    }

    /** The tools a preset offers when none are named: all it has. */
    public static List<String> defaultTools(ProviderPreset preset) {
        return switch (preset) {
            case GEMINI -> List.of("google_search", "url_context");
            case GLM -> List.of("web_search");
            default -> List.of();
        };
    }

    private static List<String> tools(ProviderPreset preset, String configured, String variable) {
        if (configured == null) {
            return defaultTools(preset);
        }
        if (configured.strip().equalsIgnoreCase("none")) {
            return List.of();
        }
        List<String> named = new ArrayList<>();
        for (String tool : configured.split(",")) {
            if (!tool.isBlank()) {
                named.add(tool.strip().toLowerCase(Locale.ROOT));
            }
        }
        return checkTools(preset, named, variable);
    }

    private static List<String> checkTools(ProviderPreset preset, List<String> named, String variable) {
        List<String> available = defaultTools(preset);
        for (String tool : named) {
            if (!available.contains(tool)) {
                throw new ConfigurationException(variable + ": " + preset.id() + " has no tool \"" + tool + "\"; "
                        + (available.isEmpty() ? "it has none" : "use " + String.join(", ", available) + " or none"));
            }
        }
        // in the preset's order, each once: the request bytes must not depend on how the list was written
        return available.stream().filter(named::contains).toList();
    }

    private static String simFormat(String value, String variable) {
        if (value == null) {
            return null;
        }
        String format = value.strip().toLowerCase(Locale.ROOT);
        if (!format.equals(ProviderSpec.SIM_FORMAT_OPENAI) && !format.equals(ProviderSpec.SIM_FORMAT_GEMINI)
                && !format.equals(ProviderSpec.SIM_FORMAT_ANTHROPIC)) {
            throw new ConfigurationException(variable + "=" + value + " is not supported: use openai, gemini or anthropic");
        }
        return format;
    }

    private static String missingKey(ProviderSpec spec, boolean fromEnvironment, String where) {
        List<String> variables = new ArrayList<>();
        if (fromEnvironment) {
            variables.add("FORGE_API_KEY");
            variables.addAll(spec.preset().keyVariables());
            return "FORGE_PROVIDER=" + spec.preset().id() + " needs an API key: set " + String.join(" or ", variables);
        }
        return where + ": the default provider " + spec.name() + " (" + spec.preset().id() + ") needs an API key in "
                + spec.apiKeyEnv();
    }

    private static String text(ObjectNode entry, String field, String at) {
        JsonNode value = entry.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual() || value.asText().isBlank()) {
            throw new ConfigurationException(at + "." + field + " must be a non-empty string, was " + value);
        }
        return value.asText().strip();
    }

    private static String oneLine(String message) {
        return String.valueOf(message).replaceAll("\\s+", " ").strip();
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value;
    }

    @Override
    public String toString() {
        return "ProvidersConfig[default=" + defaultName + ", providers=" + providers + (file == null ? "" : ", file=" + file) + "]";
    }
}
