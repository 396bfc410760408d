package dev.skillforge.server.skill;

/**
 * What a write did: the version it made (or, when nothing changed, the current one), and whether the
 * skill was created (it had no live version), updated, or left unchanged (the same files as now: no
 * new version).
 */
public record Written(SkillVersion version, Outcome outcome) {

    public enum Outcome { CREATED, UPDATED, UNCHANGED }
}
