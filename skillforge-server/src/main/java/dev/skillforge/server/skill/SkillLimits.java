package dev.skillforge.server.skill;

/**
 * How much one skill may hold, and how many of its versions are kept: settings of the operator
 * ({@code FORGE_SKILL_MAX_FILES}, {@code FORGE_SKILL_MAX_FILE_BYTES}, {@code FORGE_SKILL_MAX_BYTES},
 * {@code FORGE_SKILL_VERSIONS_KEPT}), checked on every write from every door and on every import.
 *
 * @param maxFiles      files in one version of a skill, SKILL.md included
 * @param maxFileBytes  bytes of one file (SKILL.md has its own, smaller limit: {@link SkillDocument#MAX_BYTES})
 * @param maxSkillBytes bytes of all the files of one version together
 * @param versionsKept  how many versions of each skill are kept at least; 0 keeps every one. Versions made by hand
 *                      (on the page or the HTTP API, by an import, at start from the old folder) and the newest are
 *                      never pruned
 */
public record SkillLimits(int maxFiles, long maxFileBytes, long maxSkillBytes, int versionsKept) {

    /** 200 files, 5 MiB a file, 10 MiB a skill, every version kept. */
    public static final SkillLimits DEFAULT = new SkillLimits(200, 5L * 1024 * 1024, 10L * 1024 * 1024, 0);

    public SkillLimits {
        if (maxFiles < 1 || maxFileBytes < 1 || maxSkillBytes < 1 || versionsKept < 0) {
            throw new IllegalArgumentException("skill limits must be positive (versionsKept: 0 or more)");
        }
    }

    /** Whether some versions may be pruned. */
    public boolean prunes() {
        return versionsKept > 0;
    }
}
