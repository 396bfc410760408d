package dev.skillforge.server.skill;

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
    public static final String TEAM = "team";
    /** The one person of a server without sign-in. */
    public static final String LOCAL = "local";

    /**
     * Who every door acts for until people can sign in: the one local person, who may not change the team library.
     * The doors take it in one method each (SkillRoutes, SkillCommands, SkillTools, SkillResources), where the
     * person of a request or turn will be.
     */
    public static final SkillAccess ONE_PERSON = new SkillAccess(LOCAL, false);

    public SkillAccess {
        Objects.requireNonNull(owner, "owner");
        if (owner.isBlank() || owner.equals(TEAM)) {
            throw new IllegalArgumentException("a person's id is not blank and not '" + TEAM + "'");
        }
    }
}
