package dev.skillforge.testkit;

import dev.skillforge.server.JdbcStorage;
import dev.skillforge.server.ProviderFactory;
import dev.skillforge.server.SkillForgeServer;
import dev.skillforge.server.access.TeamSettings;
import dev.skillforge.core.agent.ModelProvider;
import dev.skillforge.core.agent.TurnLimits;
import dev.skillforge.server.provider.ProviderPreset;
import dev.skillforge.server.config.SecuritySettings;
import dev.skillforge.server.conversation.ConversationHost;
import dev.skillforge.server.conversation.Conversations;
import dev.skillforge.server.conversation.Forks;
import dev.skillforge.server.conversation.Turns;
import dev.skillforge.server.provider.ConfiguredProvider;
import dev.skillforge.server.provider.ProviderRegistry;
import dev.skillforge.server.provider.ProviderSpec;
import dev.skillforge.server.provider.RetryPolicy;
import dev.skillforge.server.price.TokenPrices;
import dev.skillforge.server.provider.StreamingHttp;
import dev.skillforge.server.provider.WireAdapter;
import dev.skillforge.server.provider.sim.SimProviderServer;
import dev.skillforge.server.provider.sim.SimResponder;
import dev.skillforge.server.store.ConversationStore;
import dev.skillforge.server.store.JdbcConversationStore;
import dev.skillforge.server.store.StoreWriter;
import dev.skillforge.server.trace.Tracing;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * A real server for tests: the simulated provider on a loopback port, the OpenAI-compatible client
 * (or the Gemini or Anthropic client, for providers in their formats) talking to it over HTTP, the skill commands
 * on a temporary folder, conversations in an SQLite file there (optionally behind a store decorator) or in a
 * PostgreSQL database it is given, and the API on another port.
 */
public final class ServerHarness implements HttpEndpoint, AutoCloseable {

    /** A second configured provider, on the same simulated server, with its own model name. */
    public static final String OTHER_PROVIDER = "other";
    public static final String OTHER_MODEL = "other-model";

    /** The key the harness's providers send (the simulation accepts any). */
    public static final String API_KEY = "test-key";

    /**
     * How long the server waits for the simulation's headers and next line unless a test says otherwise: long enough for
     * a cold path on CI's two cores under a run queue of twenty (a 10 s wait failed there, 3 of 3 runs beside eight busy
     * loops); the tests of timeouts set their own.
     */
    public static final Duration PROVIDER_TIMEOUT = Duration.ofSeconds(30);

    public static final RetryPolicy FAST_RETRY = new RetryPolicy(2, Duration.ofMillis(20), Duration.ofSeconds(1));

    /** The wire formats the simulated server speaks, each by the name a providers file gives it. */
    public enum Format {
        OPENAI(ProviderSpec.SIM_FORMAT_OPENAI), GEMINI(ProviderSpec.SIM_FORMAT_GEMINI), ANTHROPIC(ProviderSpec.SIM_FORMAT_ANTHROPIC);

        private final String simFormat;

        Format(String simFormat) {
            this.simFormat = simFormat;
        }
    }

    /**
     * A provider on the simulated server: its name, its model, its wire format, its context window, and its prices
     * ({@code null}: unknown, as a simulation's are).
     */
    public record SimProvider(String name, String model, Format format, int contextWindow, TokenPrices prices, boolean sees) {
        /** A provider whose model sees images, as the simulation does. */
        public SimProvider(String name, String model, Format format, int contextWindow, TokenPrices prices) {
            this(name, model, format, contextWindow, prices, true);
        }

        /** The same provider, configured as one whose model sees no images. */
        public SimProvider blind() {
            return new SimProvider(name, model, format, contextWindow, prices, false);
        }

        public static SimProvider openAi(String name, String model, int contextWindow) {
            return new SimProvider(name, model, Format.OPENAI, contextWindow, null);
        }

        public static SimProvider gemini(String name, String model, int contextWindow) {
            return new SimProvider(name, model, Format.GEMINI, contextWindow, null);
        }

        public static SimProvider anthropic(String name, String model, int contextWindow, TokenPrices prices) {
            return new SimProvider(name, model, Format.ANTHROPIC, contextWindow, prices);
        }

        public boolean gemini() {
            return format == Format.GEMINI;
        }
    }

    /** Two named OpenAI-format providers, so tests can fix conversations to either: "sim" (the default) and {@link #OTHER_PROVIDER}. */
    public static final List<SimProvider> DEFAULT_PROVIDERS = defaultProviders(ProviderPreset.SIM.defaultContextWindow());

    public final SimProviderServer sim;
    public final SkillForgeServer server;
    public final LocalSkills skills;
    public final JdbcConversationStore database;
    public final StoreWriter writer;
    public final Conversations conversations;
    public final Turns turns;
    public final Forks forks;
    public final ConversationHost conversationHost;
    private boolean cacheBreaksExpected;

    /** A server with every default: see {@link #builder} for what a test may change. */
    public ServerHarness(Path dataDir, SimResponder responder) throws IOException {
        this(builder(dataDir, responder));
    }

    /**
     * A server on the data folder {@code dataDir} whose simulated provider answers with {@code responder}; the rest is
     * the default unless set: {@link #PROVIDER_TIMEOUT}, {@link #FAST_RETRY}, no store decorator, the default security,
     * {@link #DEFAULT_PROVIDERS}, {@link TurnLimits#DEFAULT}, no tracing, the SQLite file in {@code dataDir}, no team.
     */
    public static Builder builder(Path dataDir, SimResponder responder) {
        return new Builder(dataDir, responder);
    }

    /** What a test changes of its server, each by name; {@link #start()} starts it. */
    public static final class Builder {
        private final Path dataDir;
        private final SimResponder responder;
        private Duration providerTimeout = PROVIDER_TIMEOUT;
        private RetryPolicy retry = FAST_RETRY;
        private UnaryOperator<ConversationStore> wrapStore = UnaryOperator.identity();
        private SecuritySettings security = SecuritySettings.defaults();
        private List<SimProvider> providers; // null: DEFAULT_PROVIDERS
        private TurnLimits turnLimits = TurnLimits.DEFAULT;
        private Tracing tracing = Tracing.off();
        private JdbcConversationStore store; // null: the SQLite file in dataDir
        private Optional<TeamSettings> team = Optional.empty();

        private Builder(Path dataDir, SimResponder responder) {
            this.dataDir = dataDir;
            this.responder = responder;
        }

        /** How long the server waits for the simulation's headers and next line. */
        public Builder providerTimeout(Duration timeout) {
            this.providerTimeout = timeout;
            return this;
        }

        /** How the providers' clients retry a failed call. */
        public Builder retry(RetryPolicy policy) {
            this.retry = policy;
            return this;
        }

        /** Puts a decorator (latency, outages) between the server and the real store. */
        public Builder wrapStore(UnaryOperator<ConversationStore> wrap) {
            this.wrapStore = wrap;
            return this;
        }

        /** The API token, CORS origins and command allow-list (the defaults: none of them). */
        public Builder security(SecuritySettings settings) {
            this.security = settings;
            return this;
        }

        /**
         * The configured providers, all on the one simulated server; the first is the default. An alternative to
         * {@link #contextWindow}: setting both throws.
         */
        public Builder providers(List<SimProvider> configured) {
            if (providers != null) {
                throw new IllegalStateException("providers are set once: by providers or by contextWindow");
            }
            this.providers = Objects.requireNonNull(configured, "providers");
            return this;
        }

        /**
         * The default two providers with a context window of {@code tokens}, small to make conversations outgrow it.
         * An alternative to {@link #providers}: setting both throws.
         */
        public Builder contextWindow(int tokens) {
            return providers(defaultProviders(tokens));
        }

        /** How far one turn may go (model calls, answer size, commands). */
        public Builder turnLimits(TurnLimits limits) {
            this.turnLimits = limits;
            return this;
        }

        /** Where the server's traces go ({@link OtlpReceiver#tracing}). */
        public Builder tracing(Tracing traces) {
            this.tracing = traces;
            return this;
        }

        /** A store (PostgreSQL, for instances that share it) instead of the SQLite file; handed over: closed with the server. */
        public Builder store(JdbcConversationStore conversations) {
            this.store = conversations;
            return this;
        }

        /**
         * A team server: people sign in at {@code settings}' issuer. It listens on the port of their public URL (choose a
         * free one: {@link ServerProcess#freePort()}).
         */
        public Builder team(TeamSettings settings) {
            this.team = Optional.of(settings);
            return this;
        }

        public ServerHarness start() throws IOException {
            return new ServerHarness(this);
        }
    }

    private ServerHarness(Builder builder) throws IOException {
        JdbcConversationStore store = Objects.requireNonNullElseGet(builder.store,
                () -> JdbcConversationStore.open(null, null, null, builder.dataDir));
        List<SimProvider> providers = Objects.requireNonNullElse(builder.providers, DEFAULT_PROVIDERS);
        sim = SimProviderServer.startOnLoopback(builder.responder, SimProviderServer.Options.DEFAULT.recordingRequests());
        var timeouts = new StreamingHttp.Timeouts(builder.providerTimeout, builder.providerTimeout);
        var registry = ProviderRegistry.of(providers.getFirst().name(),
                providers.stream().map(provider -> configured(provider, timeouts, builder.retry)).toList());
        SandboxFolders.passable(builder.dataDir);
        server = SkillForgeServer.builder(builder.dataDir).turnLimits(builder.turnLimits).providers(registry)
                .address("127.0.0.1", builder.team.map(settings -> settings.publicUrl().getPort()).orElse(0)).team(builder.team)
                .storage(new JdbcStorage(store)).wrapStore(builder.wrapStore).security(builder.security).tracing(builder.tracing)
                .start();
        skills = new LocalSkills(server.skills());
        database = store;
        writer = server.writer();
        conversations = server.conversations();
        turns = server.turns();
        forks = server.forks();
        conversationHost = server.conversationHost();
    }

    private static List<SimProvider> defaultProviders(int contextWindow) {
        return List.of(SimProvider.openAi("sim", SimProviderServer.MODEL, contextWindow),
                SimProvider.openAi(OTHER_PROVIDER, OTHER_MODEL, contextWindow));
    }

    /** Built as the launcher builds a simulated provider, but on this harness's one simulation, under the provider's own model. */
    private ConfiguredProvider configured(SimProvider provider, StreamingHttp.Timeouts timeouts, RetryPolicy retry) {
        // No tools, thoughts or Anthropic settings: what each adapter asks a simulation for is its default.
        ProviderSpec spec = new ProviderSpec(provider.name(), ProviderPreset.SIM, provider.model(), null, null, API_KEY,
                provider.format().simFormat, List.of(), false, provider.contextWindow(), null, provider.prices(), provider.sees());
        ProviderFactory.SimulatedWire simulated = ProviderFactory.simulatedWire(spec, sim);
        WireAdapter wire = simulated.adapter();
        ModelProvider client = wire.client(new WireAdapter.Endpoint(simulated.baseUrl(), API_KEY, provider.model(), true), spec,
                timeouts, retry);
        // Named as its own preset, as a provider put together by hand is (ConfiguredProvider's short constructor).
        return new ConfiguredProvider(client, provider.name(), provider.model(), true, wire.nextRequestMessages(spec, true), () -> { },
                provider.name(), false, provider.contextWindow(), provider.prices(), wire.vision().seeing(provider.sees()));
    }

    /** For a test that makes cache breaks on purpose: {@link #close()} does not fail on them. */
    public ServerHarness expectCacheBreaks() {
        cacheBreaksExpected = true;
        return this;
    }

    @Override
    public String url(String path) {
        return "http://127.0.0.1:" + server.port() + path;
    }

    @Override
    public void close() {
        long breaks = server.metrics().cacheBreaks();
        server.close();
        sim.close();
        // The prompt-cache invariant holds in every test unless a test breaks it on purpose.
        if (breaks > 0 && !cacheBreaksExpected) {
            throw new AssertionError(breaks + " cache break(s): a request did not start with its conversation's previous one (see the WARN log)");
        }
    }
}
