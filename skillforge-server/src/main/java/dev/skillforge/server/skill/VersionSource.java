package dev.skillforge.server.skill;

import java.util.Locale;

/**
 * Where a version of a skill came from: the door it was written through, the conversation whose
 * turn wrote it (when the model did), and the version it restores (for a restore or an undelete).
 *
 * @param door           the door
 * @param conversationId the conversation (or stateless turn) whose model wrote it, or null
 * @param restoredFrom   the version whose files it restores, or null
 */
public record VersionSource(Door door, String conversationId, Integer restoredFrom) {

    /** The ways into the skill store. */
    public enum Door {
        /** The model, by a {@code skill} command in a turn. */
        MODEL,
        /** The HTTP API: the page, or a script. */
        API,
        /** An MCP client's {@code skill_set} or {@code skill_delete}. */
        MCP,
        /** A zip imported over the HTTP API (or dropped on the page). */
        IMPORT,
        /** The skills folder of an earlier version of SkillForge, imported once at start. */
        DISK;

        /** The name in the API and the database: lowercase. */
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }

        public static Door ofWireName(String name) {
            return valueOf(name.toUpperCase(Locale.ROOT));
        }
    }

    public static VersionSource of(Door door) {
        return new VersionSource(door, null, null);
    }

    /** A write by the model in the turn of conversation {@code conversationId}. */
    public static VersionSource model(String conversationId) {
        return new VersionSource(Door.MODEL, conversationId, null);
    }

    /** This source, restoring version {@code version}. */
    public VersionSource restoring(int version) {
        return new VersionSource(door, conversationId, version);
    }

    /**
     * Whether a person made it by hand (on the page or the HTTP API, by an import, or it came from the old folder):
     * such a version is a restore point, never pruned by {@code FORGE_SKILL_VERSIONS_KEPT}.
     */
    public boolean byHand() {
        return door == Door.API || door == Door.IMPORT || door == Door.DISK;
    }
}
