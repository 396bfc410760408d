package dev.skillforge.server.access;

import dev.skillforge.server.people.Caller;
import dev.skillforge.server.people.Person;
import dev.skillforge.server.store.PeopleStore;
import dev.skillforge.server.store.StoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.time.InstantSource;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The people of a team server ({@code FORGE_OIDC_ISSUER}): how a request's credentials become its {@link Caller},
 * signing in and out, personal access tokens, what admins see and change, and budgets. Credentials are checked
 * against the database at every request, so a revoked token or a disabled person stops working at once on every
 * instance. Who is an admin is {@code FORGE_ADMINS}, read at every request too: a subject, or an e-mail address the
 * issuer said it verified.
 */
public final class Team {

    /** The prefix of every personal access token: it tells one from an issuer's token at a glance. */
    public static final String TOKEN_PREFIX = "sf_pat_";
    /** A token's last use is written at most this often (a script's every call would be a write). */
    private static final long TOKEN_USE_WRITE_MILLIS = 60_000;
    private static final int MAX_TOKEN_NAME = 100;
    private static final Logger LOG = LoggerFactory.getLogger(Team.class);

    /** A session just started: its cookie's secret, shown once to the browser, and when it ends. */
    public record SignedIn(Person person, String sessionSecret, long expiresAtMillis) {
    }

    /** A token just made: its secret, shown once. */
    public record NewToken(PeopleStore.Token token, String secret) {
    }

    private final TeamSettings settings;
    private final PeopleStore people;
    private final InstantSource clock;
    private final OidcSignIn signIn;
    private final IssuerAccessTokens accessTokens;
    private final Spending spending;
    private final Map<String, Long> tokenUseWritten = new ConcurrentHashMap<>();

    public Team(TeamSettings settings, PeopleStore people, InstantSource clock) {
        this.settings = settings;
        this.people = people;
        this.clock = clock;
        OidcIssuer issuer = new OidcIssuer(settings.issuer());
        this.signIn = new OidcSignIn(settings, issuer, people, clock);
        this.accessTokens = new IssuerAccessTokens(settings, issuer, people, clock);
        this.spending = new Spending(people, clock, id -> people.person(id).map(Person::monthlyBudgetMicros)
                .filter(OptionalLong::isPresent).orElse(settings.defaultBudgetMicros()));
    }

    /** The people's spend and budgets: their own, or {@code FORGE_MONTHLY_BUDGET_USD}. */
    public Spending spending() {
        return spending;
    }

    public TeamSettings settings() {
        return settings;
    }

    // ----------------------------------------------------------------------------- credentials

    /** The caller of a session cookie's secret, while the session lasts and its person is not disabled. */
    public Optional<Caller> session(String secret) {
        return people.sessionPerson(Secrets.hash(secret), clock.millis()).map(this::caller);
    }

    /** The caller of a personal access token, while it is not revoked and its person not disabled. */
    public Optional<Caller> personalToken(String token) {
        if (!token.startsWith(TOKEN_PREFIX)) {
            return Optional.empty();
        }
        String hash = Secrets.hash(token);
        Optional<Caller> caller = people.tokenPerson(hash).map(this::caller);
        if (caller.isPresent()) {
            long now = clock.millis();
            Long written = tokenUseWritten.get(hash);
            if (written == null || now - written >= TOKEN_USE_WRITE_MILLIS) {
                tokenUseWritten.put(hash, now);
                try {
                    people.tokenUsed(hash, now);
                } catch (StoreException e) {
                    LOG.warn("a token's last use was not written: {}", e.getMessage());
                }
            }
        }
        return caller;
    }

    /**
     * The caller of an access token the issuer made for this server's MCP endpoint, unless its person is disabled.
     *
     * @throws RefusedToken saying why the token is not accepted
     */
    public Caller issuerAccessToken(String token) {
        Person person;
        try {
            person = accessTokens.personOf(token);
        } catch (IssuerAccessTokens.Refused e) {
            throw new RefusedToken(e.getMessage());
        } catch (OidcIssuer.IssuerUnreachable e) {
            LOG.warn("an access token could not be checked: {}", e.getMessage());
            throw new RefusedToken("the issuer cannot be reached to check it");
        }
        if (person.disabled()) {
            throw new RefusedToken("its person is disabled on this server");
        }
        return caller(person);
    }

    /** An access token this server does not accept. */
    public static final class RefusedToken extends RuntimeException {
        RefusedToken(String message) {
            super(message, null, false, false);
        }
    }

    private Caller caller(Person person) {
        return new Caller(person.id(), isAdmin(person));
    }

    /** Whether {@code FORGE_ADMINS} names the person (by subject, or by an e-mail address their issuer verified). */
    public boolean isAdmin(Person person) {
        return settings.admins().contains(person.subject())
                || (person.emailVerified() && person.email() != null && settings.admins().contains(person.email().toLowerCase(Locale.ROOT)));
    }

    // -------------------------------------------------------------------------------- signing in

    /**
     * Where to send a browser to sign in.
     *
     * @throws SignInUnavailable when the issuer cannot be reached
     */
    public URI signInRedirect() {
        try {
            return signIn.start();
        } catch (OidcIssuer.IssuerUnreachable e) {
            LOG.warn("sign-in: {}", e.getMessage());
            throw new SignInUnavailable("The sign-in service cannot be reached right now; try again shortly");
        }
    }

    /**
     * Finishes a sign-in: the person, and a new session. The first admin to sign in is given what the server's one
     * person owned before it had people.
     *
     * @throws SignInUnavailable saying why it failed (the person is disabled, the answer was wrong, the issuer refused…)
     */
    public SignedIn finishSignIn(String query) {
        Person person;
        try {
            person = signIn.finish(query);
        } catch (OidcSignIn.SignInFailed e) {
            LOG.info("a sign-in failed: {}", e.getMessage());
            throw new SignInUnavailable("Signing in did not work: " + e.getMessage());
        } catch (OidcIssuer.IssuerUnreachable e) {
            LOG.warn("sign-in: {}", e.getMessage());
            throw new SignInUnavailable("The sign-in service cannot be reached right now; try again shortly");
        }
        if (person.disabled()) {
            throw new SignInUnavailable("Your account is disabled on this server: ask one of its admins");
        }
        if (isAdmin(person)) {
            int claimed = people.claimLocal(person.id());
            if (claimed > 0) {
                LOG.info("{} conversations of the server's one person before it had people are now admin {}'s", claimed, person.id());
            }
        }
        String secret = Secrets.random("");
        long now = clock.millis();
        long expires = now + settings.sessionLifetime().toMillis();
        people.addSession(Secrets.hash(secret), person.id(), now, expires);
        LOG.info("person {} signed in", person.id());
        return new SignedIn(person, secret, expires);
    }

    /** Ends the session of {@code secret} (a sign-out). */
    public void signOut(String secret) {
        people.removeSession(Secrets.hash(secret), clock.millis());
    }

    /** Signing in cannot go on, and what to tell the person. */
    public static final class SignInUnavailable extends RuntimeException {
        SignInUnavailable(String message) {
            super(message, null, false, false);
        }
    }

    // ---------------------------------------------------------------------------- the person

    public Optional<Person> person(String id) {
        return people.person(id);
    }

    /**
     * Makes a personal access token for {@code caller}.
     *
     * @throws IllegalArgumentException for a name that is blank or longer than 100 characters
     */
    public NewToken createToken(Caller caller, String name) {
        String clean = name == null ? "" : name.strip();
        if (clean.isEmpty() || clean.length() > MAX_TOKEN_NAME || clean.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException("a token's name is 1 to " + MAX_TOKEN_NAME + " characters without control characters");
        }
        String secret = Secrets.random(TOKEN_PREFIX);
        return new NewToken(people.addToken(caller.personId(), clean, Secrets.hash(secret), clock.millis()), secret);
    }

    public List<PeopleStore.Token> tokens(Caller caller) {
        return people.tokens(caller.personId());
    }

    /** @return whether the caller had that token */
    public boolean revokeToken(Caller caller, String id) {
        return people.removeToken(caller.personId(), id);
    }

    // ----------------------------------------------------------------------------------- admins

    /** Everyone who signed in, with this month's spend. */
    public List<PeopleStore.Summary> people() {
        return people.people(spending.monthName());
    }

    /** Changes a person; empty when there is none with this id. */
    public Optional<Person> update(String id, Optional<Boolean> disabled, Optional<OptionalLong> budgetMicros) {
        Optional<Person> changed = people.update(id, disabled, budgetMicros);
        changed.ifPresent(person -> LOG.info("person {} changed: disabled {}, budget {}", person.id(), person.disabled(),
                person.monthlyBudgetMicros()));
        return changed;
    }

}
