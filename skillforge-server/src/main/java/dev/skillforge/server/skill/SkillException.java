package dev.skillforge.server.skill;

/**
 * A skill request refused for a reason the model can read and act on: a bad name, an invalid
 * SKILL.md, a symbolic link where a skill should be. The message is one line, without an
 * {@code error:} prefix (the command layer adds it).
 *
 * <p>It is an expected outcome, not a bug, so it carries no stack trace.
 */
public final class SkillException extends RuntimeException {

    public SkillException(String message) {
        super(message, null, false, false);
    }
}
