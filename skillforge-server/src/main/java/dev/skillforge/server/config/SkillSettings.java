package dev.skillforge.server.config;

import dev.skillforge.server.skill.SkillLimits;

import java.util.Map;

/**
 * The skill store's limits from {@code FORGE_*} variables, each defaulting to {@link SkillLimits#DEFAULT}:
 * {@code FORGE_SKILL_MAX_FILES} (files in a skill, SKILL.md included), {@code FORGE_SKILL_MAX_FILE_BYTES},
 * {@code FORGE_SKILL_MAX_BYTES} (all of a skill's files together) and {@code FORGE_SKILL_VERSIONS_KEPT}
 * (0, the default, keeps every version).
 */
public final class SkillSettings {

    private SkillSettings() {
    }

    public static SkillLimits fromEnvironment() {
        return from(System.getenv());
    }

    public static SkillLimits from(Map<String, String> env) {
        SkillLimits d = SkillLimits.DEFAULT;
        return new SkillLimits(
                Settings.integer(env, "FORGE_SKILL_MAX_FILES", d.maxFiles(), 1, 100_000),
                Settings.wholeNumber(env, "FORGE_SKILL_MAX_FILE_BYTES", d.maxFileBytes(), 1024, 1024L * 1024 * 1024),
                Settings.wholeNumber(env, "FORGE_SKILL_MAX_BYTES", d.maxSkillBytes(), 1024, 1024L * 1024 * 1024),
                Settings.integer(env, "FORGE_SKILL_VERSIONS_KEPT", d.versionsKept(), 0, 1_000_000));
    }
}
