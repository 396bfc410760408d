package dev.skillforge.server.skill;

/**
 * A skill as listed: its name and description, its newest version and when that was made, and
 * whether it is one of the team library's.
 */
public record SkillSummary(String name, String description, int version, long updatedAt, boolean team) {
}
