package dev.skillforge.server.skill;

import java.util.List;

/**
 * One version of a skill, immutable once written: its number (1, 2, … per owner and name), when and
 * where it was made, its description, and its files (none for the version that deleted the skill).
 *
 * @param owner       whose skill: a person's id, or {@link SkillAccess#TEAM} for the team library
 * @param createdAt   epoch milliseconds
 * @param deleted     whether this version deleted the skill
 * @param description the SKILL.md's description (for a deleting version: that of the version it deleted)
 */
public record SkillVersion(String owner, String name, int version, long createdAt, VersionSource source, boolean deleted,
                           String description, List<SkillFileInfo> files) {

    public SkillVersion {
        files = List.copyOf(files);
    }

    /** Whether this is a version of the team library. */
    public boolean team() {
        return owner.equals(SkillAccess.TEAM);
    }
}
