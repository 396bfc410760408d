package dev.skillforge.server.people;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * A person who signed in at the team's OpenID Connect issuer, as stored.
 *
 * @param id                   this server's id for them (random, given at their first sign-in)
 * @param issuer               the issuer that vouches for them ({@code iss})
 * @param subject              their id at that issuer ({@code sub}): with the issuer, what identifies them
 * @param name                 their name as the issuer gave it last, or {@code null}
 * @param email                their e-mail address as the issuer gave it last, or {@code null}
 * @param emailVerified        whether the issuer said it verified that address
 * @param disabled             an admin stopped them: no session, token or access token of theirs works
 * @param monthlyBudgetMicros  what they may spend a month in millionths of a dollar, or empty for the server's default
 * @param firstSignInMillis    when they first signed in
 * @param lastSignInMillis     when they last signed in
 */
public record Person(String id, String issuer, String subject, String name, String email, boolean emailVerified, boolean disabled,
                     OptionalLong monthlyBudgetMicros, long firstSignInMillis, long lastSignInMillis) {

    public Person {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(issuer, "issuer");
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(monthlyBudgetMicros, "monthlyBudgetMicros");
    }
}
