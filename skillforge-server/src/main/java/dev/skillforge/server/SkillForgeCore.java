package dev.skillforge.server;

import dev.skillforge.core.agent.EventSink;
import dev.skillforge.core.agent.TurnLimits;
import dev.skillforge.server.cache.PrefixGuard;
import dev.skillforge.server.config.SecuritySettings;
import dev.skillforge.server.error.ConfigurationException;
import dev.skillforge.server.access.Spending;
import dev.skillforge.server.access.Team;
import dev.skillforge.server.access.TeamSettings;
import dev.skillforge.server.conversation.ConversationModels;
import dev.skillforge.server.conversation.Attachments;
import dev.skillforge.server.conversation.ConversationHost;
import dev.skillforge.server.conversation.Conversations;
import dev.skillforge.server.conversation.Forks;
import dev.skillforge.server.conversation.OtherInstances;
import dev.skillforge.server.conversation.Turns;
import dev.skillforge.server.conversation.ConversationTimings;
import dev.skillforge.server.conversation.InstanceIdentity;
import dev.skillforge.server.exec.CommandRouter;
import dev.skillforge.server.exec.CommandStats;
import dev.skillforge.server.exec.ProcessRunner;
import dev.skillforge.server.exec.Sandbox;
import dev.skillforge.server.exec.SandboxUser;
import dev.skillforge.server.exec.Workspaces;
import dev.skillforge.server.conversation.StatelessAgent;
import dev.skillforge.server.metrics.ServerMetrics;
import dev.skillforge.server.provider.ProviderRegistry;
import dev.skillforge.server.skill.OldSkillsFolder;
import dev.skillforge.server.skill.SkillCommands;
import dev.skillforge.server.skill.SkillLimits;
import dev.skillforge.server.skill.SkillStore;
import dev.skillforge.server.skill.SystemPrompt;
import dev.skillforge.server.webpage.WebCommands;
import dev.skillforge.server.preferences.SavedPreferences;
import dev.skillforge.server.store.ConversationStore;
import dev.skillforge.server.store.PeopleStore;
import dev.skillforge.server.store.StoreWriter;
import dev.skillforge.server.trace.Tracing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.UnaryOperator;

/**
 * What every door of SkillForge serves from, with no door of its own: the skills and their
 * versions (in the database, beside the conversations), the conversation store and its background writer, the conversations on the configured
 * providers, the command runner and the metrics. {@link SkillForgeServer} puts the HTTP API (and
 * {@code /mcp}) in front of it; {@code skillforge mcp} puts the MCP stdio transport in front of it.
 */
public final class SkillForgeCore implements AutoCloseable {

    private final SkillStore skills;
    private final SkillLimits skillLimits;
    private final Storage storage;
    private final ConversationStore store;
    private final StoreWriter writer;
    private final ConversationHost conversationHost;
    private final Conversations conversations;
    private final Forks forks;
    private final Attachments attachments;
    private final CommandStats commandStats;
    private final Workspaces workspaces;
    private final ServerMetrics metrics;
    private final StatelessAgent stateless;
    private final ProviderRegistry providers;
    private final InstanceIdentity identity;
    private final ProviderModels models;
    private final Tracing tracing;
    private final Optional<Team> team;
    private final Spending spending;
    private final SavedPreferences preferences;

    private SkillForgeCore(Opened opened, ProviderRegistry providers, Storage storage, ConversationStore store,
                           StoreWriter writer, InstanceIdentity identity, SkillStore skills, SkillLimits skillLimits, Workspaces workspaces,
                           CommandRouter commands, CommandStats commandStats, ServerMetrics metrics, ProviderModels models,
                           Tracing tracing, ConversationHost conversationHost, Optional<Team> team, Spending spending,
                           SavedPreferences preferences) {
        this.providers = providers;
        this.storage = storage;
        this.store = store;
        this.writer = writer;
        this.identity = identity;
        this.skills = skills;
        this.skillLimits = skillLimits;
        this.workspaces = workspaces;
        this.commandStats = commandStats;
        this.metrics = metrics;
        this.models = models;
        this.stateless = new StatelessAgent(models.statelessLoop(), commands::in, spending,
                models.prices(new ConversationModels.Choice(providers.defaultName(), providers.defaultProvider().modelName())),
                providers.defaultProvider().modelName(), providers.defaultProvider().vision());
        this.tracing = tracing;
        this.conversationHost = conversationHost;
        this.conversations = new Conversations(conversationHost);
        this.forks = new Forks(conversationHost);
        this.attachments = new Attachments(conversationHost);
        this.team = team;
        this.spending = spending;
        this.preferences = preferences;
        opened.keep();
    }

    /** A core on the data folder {@code dataDir}; everything else has a default but the providers and the storage. */
    public static Builder builder(Path dataDir) {
        return new Builder(dataDir);
    }

    /**
     * How a core is made. The providers and the storage are handed over: from {@link #start()} on they belong to the
     * core (closed with it), and a start that fails halfway closes them with everything it had opened.
     */
    public static final class Builder {
        private final Path dataDir;
        private TurnLimits turnLimits = TurnLimits.DEFAULT;
        private ProviderRegistry providers;
        private Storage storage;
        private UnaryOperator<ConversationStore> wrapStore = UnaryOperator.identity();
        private SecuritySettings security = SecuritySettings.defaults();
        private ConversationTimings timings = ConversationTimings.DEFAULTS;
        private InstantSource clock = InstantSource.system();
        private Tracing tracing = Tracing.off();
        private Optional<TeamSettings> team = Optional.empty();
        private SkillLimits skillLimits = SkillLimits.DEFAULT;

        private Builder(Path dataDir) {
            this.dataDir = Objects.requireNonNull(dataDir, "dataDir");
        }

        /** How far one turn may go (model calls, answer size, commands); {@link TurnLimits#DEFAULT} by default. */
        public Builder turnLimits(TurnLimits limits) {
            this.turnLimits = Objects.requireNonNull(limits);
            return this;
        }

        /** Every configured provider; new conversations and stateless turns use the default one. */
        public Builder providers(ProviderRegistry registry) {
            this.providers = Objects.requireNonNull(registry);
            return this;
        }

        /** Where conversations, skills and people are kept ({@link JdbcStorage}: SQLite or PostgreSQL). */
        public Builder storage(Storage kept) {
            this.storage = Objects.requireNonNull(kept);
            return this;
        }

        /** A decorator between the conversations and the database (latency or outages in tests and benchmarks). */
        public Builder wrapStore(UnaryOperator<ConversationStore> wrap) {
            this.wrapStore = Objects.requireNonNull(wrap);
            return this;
        }

        /** What the model's commands may run, in which sandbox; {@link SecuritySettings#defaults()} by default. */
        public Builder security(SecuritySettings settings) {
            this.security = Objects.requireNonNull(settings);
            return this;
        }

        /** Leases, hand-over and eviction; {@link ConversationTimings#DEFAULTS} by default. */
        public Builder conversationTimings(ConversationTimings conversationTimings) {
            this.timings = Objects.requireNonNull(conversationTimings);
            return this;
        }

        /** The time for records, leases and idle eviction; the system clock by default. */
        public Builder clock(InstantSource source) {
            this.clock = Objects.requireNonNull(source);
            return this;
        }

        /** Where turns' traces go (docs/tracing.md); off by default. From {@link #start()} on it belongs to the core. */
        public Builder tracing(Tracing traces) {
            this.tracing = Objects.requireNonNull(traces);
            return this;
        }

        /** The team's issuer, clients and admins ({@code FORGE_OIDC_ISSUER}…); empty by default: one person, no sign-in. */
        public Builder team(Optional<TeamSettings> settings) {
            this.team = Objects.requireNonNull(settings);
            return this;
        }

        Optional<TeamSettings> team() {
            return team;
        }

        /** Files and bytes a skill may hold, versions kept; {@link SkillLimits#DEFAULT} by default. */
        public Builder skillLimits(SkillLimits limits) {
            this.skillLimits = Objects.requireNonNull(limits);
            return this;
        }

        SecuritySettings security() {
            return security;
        }

        /** The start is off (refused before the core opened anything): closes the providers and the storage handed over. */
        void abandon(Throwable failure) {
            Opened handedOver = new Opened();
            if (providers != null) {
                handedOver.add(providers);
            }
            if (storage != null) {
                handedOver.add(storage);
            }
            handedOver.add(tracing);
            handedOver.closeAll(failure);
        }

        /**
         * Opens the store's writer, takes the data folder's instance identity, checks the sandbox, recovers what a
         * previous life of this instance left, and starts keeping leases.
         *
         * @throws ConfigurationException when programs are allowed and their sandbox does not work here
         * @throws IOException            when the data folder cannot be made or read
         */
        public SkillForgeCore start() throws IOException {
            if (providers == null || storage == null) {
                throw new IllegalStateException("a core needs its providers and its storage");
            }
            Opened opened = new Opened();
            opened.add(providers);
            opened.add(storage);
            opened.add(tracing);
            try {
                SandboxUser sandboxUser = security.commands().isEmpty() ? SandboxUser.thisProcessItself()
                        : SandboxUser.forThisProcess(security.sandbox().uid());
                DataFolder.prepare(dataDir, sandboxUser);
                Workspaces workspaces = Workspaces.at(dataDir.resolve("workspaces"), sandboxUser, security.sandbox().quota());
                Sandbox sandbox = Sandbox.forPrograms(security.sandbox(), security.commands(), workspaces); // probed before anything starts
                SkillStore skills = storage.skills(skillLimits, clock);
                new OldSkillsFolder(dataDir.resolve("skills")).importInto(skills, skillLimits);
                ConversationStore store = wrapStore.apply(storage.conversations());
                StoreWriter writer = opened.add(new StoreWriter(store));
                InstanceIdentity identity = opened.add(InstanceIdentity.of(dataDir));
                CommandStats commandStats = new CommandStats();
                ServerMetrics metrics = new ServerMetrics();
                WebCommands web = opened.add(new WebCommands(security.web()));
                CommandRouter commands = new CommandRouter(new SkillCommands(skills)::in, web,
                        new ProcessRunner(security.commands(), sandbox, security.limits(), commandStats), workspaces, commandStats);
                ProviderModels models = new ProviderModels(providers, turnLimits, metrics, PrefixGuard.strictByProperty(), tracing);
                PeopleStore people = storage.people();
                Optional<Team> teamOfPeople = team.map(settings -> new Team(settings, people, clock));
                Spending spending = teamOfPeople.map(Team::spending)
                        .orElseGet(() -> new Spending(people, clock, person -> OptionalLong.empty())); // one person: counted, no limit
                SavedPreferences preferences = new SavedPreferences(storage.preferences(),
                        providers.listings().stream().map(ProviderRegistry.Listing::name).toList(), clock);
                ConversationHost conversations = opened.add(new ConversationHost(store, writer,
                        SystemPrompt.of(security.web().enabled()), models, new ConversationWorkspaces(commands, workspaces),
                        spending, preferences, identity.id(), timings, clock, System::nanoTime));
                conversations.recover();
                conversations.startMaintenance();
                return new SkillForgeCore(opened, providers, storage, store, writer, identity, skills, skillLimits, workspaces, commands,
                        commandStats, metrics, models, tracing, conversations, teamOfPeople, spending, preferences);
            } catch (IOException | RuntimeException e) {
                opened.closeAll(e);
                throw e;
            }
        }
    }

    public SkillStore skills() {
        return skills;
    }

    /** What a skill may hold, and how many versions are kept. */
    public SkillLimits skillLimits() {
        return skillLimits;
    }

    /** Where everything is kept; its conversations are beneath any decorator. */
    public Storage storage() {
        return storage;
    }

    /** The store the conversations write to (the database, or the decorator around it). */
    public ConversationStore store() {
        return store;
    }

    public StoreWriter writer() {
        return writer;
    }

    /** The conversations this instance holds: their leases, recovery, draining. */
    public ConversationHost conversationHost() {
        return conversationHost;
    }

    /** People's conversations by id. */
    public Conversations conversations() {
        return conversations;
    }

    /** The turns of people's conversations; {@code elsewhere}: the other instances of a fleet, empty for a server alone. */
    public Turns turns(Optional<OtherInstances> elsewhere) {
        return new Turns(conversationHost, elsewhere);
    }

    public Forks forks() {
        return forks;
    }

    public Attachments attachments() {
        return attachments;
    }

    /** What happened to the model's commands (run, refused, killed…). */
    public CommandStats commandStats() {
        return commandStats;
    }

    /** Where allowed programs run: a workspace per conversation under {@code dataDir/workspaces}. */
    public Workspaces workspaces() {
        return workspaces;
    }

    /** Runs, iterations, commands, tokens, cache breaks, latencies ({@code GET /metrics}). */
    public ServerMetrics metrics() {
        return metrics;
    }

    /** What runs stateless {@code /api/agent} turns: the default provider without a prefix guard, and their workspaces. */
    public StatelessAgent stateless() {
        return stateless;
    }

    /** Every configured provider by name. */
    public ProviderRegistry providers() {
        return providers;
    }

    /** The observer of a stateless turn that starts now with the person's {@code message}: its metrics and its trace. */
    public EventSink statelessObserver(String person, String message) {
        return models.statelessObserver(person, message);
    }

    /** Where turns' traces go. */
    public Tracing tracing() {
        return tracing;
    }

    /** The people of a team server; empty on a server of one person. */
    public Optional<Team> team() {
        return team;
    }

    /** What each person spent this month, and their budgets. */
    public Spending spending() {
        return spending;
    }

    /** What each person chose for themselves (the settings page). */
    public SavedPreferences preferences() {
        return preferences;
    }

    /** Stops running turns (recorded as cancelled), flushes every write, then closes the store and the providers. */
    @Override
    public void close() {
        conversationHost.close();
        writer.close();
        storage.close();
        providers.close();
        identity.close();
        tracing.close(); // last: the spans of turns stopped above are exported
    }
}
