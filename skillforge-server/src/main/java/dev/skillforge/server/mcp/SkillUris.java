package dev.skillforge.server.mcp;

import dev.skillforge.server.skill.SkillName;
import dev.skillforge.server.skill.SkillPath;

import java.util.Optional;

/**
 * The {@code skill://} URIs of skills' files: {@code skill://NAME} is a skill's SKILL.md (as it
 * always was), {@code skill://NAME/PATH} any of its files, {@code skill://NAME/SKILL.md} included.
 */
final class SkillUris {

    static final String SCHEME = "skill://";

    /** A file of a skill, named by a URI. */
    record FileUri(String name, SkillPath path) {
    }

    private SkillUris() {
    }

    static String of(String name) {
        return SCHEME + name;
    }

    static String of(String name, SkillPath path) {
        return SCHEME + name + "/" + path.value();
    }

    /** The skill and file {@code uri} names, or empty when it names none (another scheme, an invalid name or path). */
    static Optional<FileUri> parse(String uri) {
        if (uri == null || !uri.startsWith(SCHEME)) {
            return Optional.empty();
        }
        String rest = uri.substring(SCHEME.length());
        int slash = rest.indexOf('/');
        String name = slash < 0 ? rest : rest.substring(0, slash);
        String path = slash < 0 ? SkillPath.SKILL_MD.value() : rest.substring(slash + 1);
        if (!SkillName.isValid(name) || !SkillPath.isValid(path)) {
            return Optional.empty();
        }
        return Optional.of(new FileUri(name, SkillPath.of(path)));
    }
}
