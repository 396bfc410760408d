package dev.skillforge.server.store;

import dev.skillforge.server.people.Person;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The people of a team server and their credentials, kept where every instance of a fleet sees the same: who signed
 * in, their sessions, their personal access tokens, the sign-ins under way, and what each spent by month. Secrets are
 * never stored, only their SHA-256 (hex), which the caller computes.
 *
 * <p>A session or token resolves to its person only while the person is not disabled, so a disable stops every
 * credential of theirs on every instance at the next request.
 */
public interface PeopleStore {

    /** A person with what an admin sees of them. */
    record Summary(Person person, long conversations, long tokens, long spentMicrosThisMonth) {
    }

    /** A personal access token as listed (never its secret). */
    record Token(String id, String name, long createdAtMillis, OptionalLong lastUsedAtMillis) {
    }

    /** A sign-in under way, as saved when the browser was sent to the issuer. */
    record SignInAttempt(String verifier, String nonce, long createdAtMillis) {
    }

    /**
     * Records a sign-in (or a first use of an issuer's access token): the person of {@code issuer} and {@code subject},
     * made with a new id the first time, with the name and e-mail the issuer gave now.
     */
    Person signedIn(String issuer, String subject, String name, String email, boolean emailVerified, long nowMillis);

    /** The person who signs in with {@code issuer} and {@code subject}, if they did before. */
    Optional<Person> person(String issuer, String subject);

    /** The person with id {@code id}. */
    Optional<Person> person(String id);

    /** Everyone who signed in, by first sign-in, with their conversations, tokens and spend in {@code month}. */
    List<Summary> people(String month);

    /**
     * Changes what an admin may change of a person; an absent value is left as it was.
     *
     * @param budgetMicros the new monthly budget ({@code OptionalLong.empty()} inside a present value: none of their own)
     * @return the person as changed, or empty when there is none with this id
     */
    Optional<Person> update(String id, Optional<Boolean> disabled, Optional<OptionalLong> budgetMicros);

    /**
     * Gives {@code personId} what the built-in person of a server without sign-in owned (conversations, skills with their
     * history, spend, and their settings), as the first admin of a team server that was one person's before.
     *
     * @return how many conversations changed owner
     */
    int claimLocal(String personId);

    /** Records a new session of {@code personId}, valid until {@code expiresAtMillis}. */
    void addSession(String secretHash, String personId, long nowMillis, long expiresAtMillis);

    /** The person of a live session of someone not disabled. */
    Optional<Person> sessionPerson(String secretHash, long nowMillis);

    /** Ends a session (sign-out), and every session that expired before {@code nowMillis}. */
    void removeSession(String secretHash, long nowMillis);

    /** Records a new personal access token of {@code personId}; its secret's hash only. */
    Token addToken(String personId, String name, String secretHash, long nowMillis);

    /** A person's tokens, newest first. */
    List<Token> tokens(String personId);

    /** @return whether {@code personId} had a token {@code id} (another person's is not theirs to revoke) */
    boolean removeToken(String personId, String id);

    /** The person of a token of someone not disabled. */
    Optional<Person> tokenPerson(String secretHash);

    /** Notes a token's use. */
    void tokenUsed(String secretHash, long nowMillis);

    /** Records a sign-in under way, under the hash of its {@code state}. */
    void addSignIn(String stateHash, String verifier, String nonce, long nowMillis);

    /**
     * The sign-in whose state hashes to {@code stateHash}, removed so it is used once, if it started after
     * {@code notBeforeMillis}; sign-ins older than that are removed too.
     */
    Optional<SignInAttempt> takeSignIn(String stateHash, long notBeforeMillis);

    /** What {@code personId} spent in {@code month} ({@code YYYY-MM}), in millionths of a dollar. */
    long spentMicros(String personId, String month);

    /** Adds {@code micros} to what {@code personId} spent in {@code month}; instances add at once without losing any. */
    void addSpend(String personId, String month, long micros);
}
