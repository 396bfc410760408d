package dev.skillforge.server.skill;

import dev.skillforge.server.people.Caller;

import java.util.Objects;

/**
 * Who asks the skill store for something: the person whose skills it reads and writes (an opaque
 * id), and whether they may change the team library (the skills owned by {@value #TEAM}, which
 * every person's agent can read, after their own).
 *
 * @param owner     the person's id; never {@value #TEAM}
 * @param teamAdmin whether they may publish to and unpublish from the team library
 */
public record SkillAccess(String owner, boolean teamAdmin) {

    /** The owner of the team library. */
    public static final String TEAM = Caller.TEAM_ID;
    /** The one person of a server without sign-in. */
    public static final String LOCAL = Caller.LOCAL_ID;

    /** The one person of a server without sign-in, as the skills a server had before it had a store are imported for. */
    public static final SkillAccess ONE_PERSON = new SkillAccess(LOCAL, false);

    public SkillAccess {
        Objects.requireNonNull(owner, "owner");
        if (owner.isBlank() || owner.equals(TEAM)) {
            throw new IllegalArgumentException("a person's id is not blank and not '" + TEAM + "'");
        }
    }
}
