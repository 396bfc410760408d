package dev.skillforge.server.people;

import java.util.Objects;

/**
 * Who a request, a turn or a command acts for: a person's id, and whether they administer the server. Every
 * door resolves its credentials to one caller before any handler runs, and every query of what people own takes
 * the caller's id.
 *
 * @param personId the person's id: {@link #LOCAL_ID} on a server without sign-in, else a random id given at their
 *                 first sign-in
 * @param admin    whether they may see the people, disable them, set budgets and change the team library
 */
public record Caller(String personId, boolean admin) {

    /** The one person of a server without sign-in (no {@code FORGE_OIDC_ISSUER}): everything is theirs. */
    public static final String LOCAL_ID = "local";
    /** The owner of the team library: skills every person's agent reads, which only admins change. */
    public static final String TEAM_ID = "team";
    /** The person of a server without sign-in, who administers it. */
    public static final Caller LOCAL = new Caller(LOCAL_ID, true);

    public Caller {
        Objects.requireNonNull(personId, "personId");
        if (personId.equals(TEAM_ID)) {
            throw new IllegalArgumentException("the team library is nobody's caller");
        }
    }
}
