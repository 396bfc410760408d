package dev.skillforge.server.skill;

import java.util.List;

/**
 * A skill request refused for reasons the model or the person can read and act on: a bad name or
 * path, an invalid SKILL.md, a folder over a limit, a version that does not exist, a write to the
 * team library by someone who may not. The message is one line without an {@code error:} prefix
 * (the command layer adds it); {@link #problems()} holds each problem on its own, in the order
 * found, so an answer can list them all.
 *
 * <p>It is an expected outcome, not a bug, so it carries no stack trace.
 */
public final class SkillException extends RuntimeException {

    /** What kind of refusal this is: the HTTP door answers 400, 413, 404 and 403 for them. */
    public enum Kind { INVALID, TOO_LARGE, NOT_FOUND, FORBIDDEN }

    private final Kind kind;
    private final List<String> problems;

    public SkillException(String message) {
        this(Kind.INVALID, List.of(message));
    }

    public SkillException(Kind kind, String message) {
        this(kind, List.of(message));
    }

    /** @param problems one or more problems, each a sentence */
    public SkillException(Kind kind, List<String> problems) {
        super(String.join(" ", problems), null, false, false);
        if (problems.isEmpty()) {
            throw new IllegalArgumentException("a refusal names at least one problem");
        }
        this.kind = kind;
        this.problems = List.copyOf(problems);
    }

    public Kind kind() {
        return kind;
    }

    /** Each problem found, in order; the message is them joined. */
    public List<String> problems() {
        return problems;
    }
}
