package dev.skillforge.testkit;

import dev.skillforge.server.skill.SkillAccess;
import dev.skillforge.server.skill.SkillPath;
import dev.skillforge.server.skill.SkillStore;
import dev.skillforge.server.skill.SkillSummary;
import dev.skillforge.server.skill.VersionSource;
import dev.skillforge.server.skill.Written;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * The one local person's skills, for tests that put a skill in place or check what a turn or the page did: a SKILL.md
 * saved as the page saves it, read as the newest version holds it. Everything else is on {@link #store()}.
 */
public final class LocalSkills {

    private final SkillStore store;

    public LocalSkills(SkillStore store) {
        this.store = store;
    }

    /** Saves {@code skillMd} as the SKILL.md of skill {@code name}, as the page's editor does (a version by hand). */
    public Written save(String name, String skillMd) {
        return store.putFile(SkillAccess.ONE_PERSON, name, SkillPath.SKILL_MD, skillMd.getBytes(StandardCharsets.UTF_8),
                VersionSource.of(VersionSource.Door.API));
    }

    /** The SKILL.md of the live skill {@code name}, or empty when there is none. */
    public Optional<String> get(String name) {
        String owner = SkillAccess.LOCAL;
        return store.current(owner, name).flatMap(current -> store.folder(owner, name, current.version()))
                .flatMap(folder -> folder.file(SkillPath.SKILL_MD)).map(bytes -> new String(bytes, StandardCharsets.UTF_8));
    }

    public List<SkillSummary> list() {
        return store.list(SkillAccess.LOCAL);
    }

    public SkillStore store() {
        return store;
    }
}
