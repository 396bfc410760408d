package dev.skillforge.server.skill;

import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * Every skill of every person with its whole history. A skill is a folder ({@link SkillFolder});
 * every change to it, through any door, adds a {@link SkillVersion}, immutable from then on, holding
 * the whole folder; each file's content is stored once per owner under its SHA-256. A delete adds a
 * version that holds no files, and a restore (or an undelete) adds a version with the files of an
 * earlier one: nothing a door does removes or rewrites a version. Only
 * {@link SkillLimits#versionsKept()}, an operator's setting, prunes old versions, and never the
 * newest or one made by hand ({@link VersionSource#byHand()}).
 *
 * <p><b>Owners.</b> Every method takes the person it acts for, explicitly. A person reads their own
 * skills and then the team library's ({@link SkillAccess#TEAM}): a skill of their own shadows a team
 * skill of the same name. Another person's skill answers exactly as a missing one. A write always
 * goes to the person's own skills (changing a team skill makes the person's own copy); only
 * {@link #publish} and {@link #unpublish}, for team admins, change the team library.
 *
 * <p><b>Reads</b> resolve a name to one library, the same for every method: the person's while
 * their skill is live; else the team's while that is live; else the person's deleted skill if
 * they have one (its history, to restore it); else the team's.
 *
 * <p><b>Concurrency.</b> Writes to one skill from several threads or server instances sharing the
 * database are applied one after the other, each on the version before it: none is lost, each makes
 * its own version.
 *
 * <p>Refusals a person or model can act on are {@link SkillException}s; a database that fails is a
 * {@code StoreException} of the store package.
 */
public interface SkillStore {

    /** The person's live skills, sorted by name, then the team library's that none of theirs shadows, sorted by name. */
    List<SkillSummary> list(String owner);

    /**
     * The person's own deleted skills, sorted by name: each with its deleting version and the description it had, so
     * that they can be found and restored.
     */
    List<SkillSummary> deleted(String owner);

    /**
     * The listed skills ({@link #list}) whose name, description or SKILL.md contains every one of {@code words},
     * ignoring case. Blank words are ignored; no words match every skill.
     */
    List<SkillSummary> search(String owner, Collection<String> words);

    /** The newest version of the live skill {@code name} the person reads (theirs, else the team's), if there is one. */
    Optional<SkillVersion> current(String owner, String name);

    /** Every version of skill {@code name} (of the library the person reads), newest first; empty when none. */
    List<SkillVersion> history(String owner, String name);

    /**
     * The files of version {@code version} of skill {@code name}, of the library {@link #history} reads.
     *
     * @return empty when there is no such version, or it is a version that deleted the skill
     */
    Optional<SkillFolder> folder(String owner, String name, int version);

    /**
     * Makes {@code folder} the person's skill of its name: a new version holding exactly its files, unless they are
     * the files of the live version already ({@link Written.Outcome#UNCHANGED}, no new version).
     */
    Written write(SkillAccess who, SkillFolder folder, VersionSource source);

    /**
     * {@link #write} of several skills in one transaction: all of them, or (on a failure) none. An import.
     */
    List<Written> writeAll(SkillAccess who, List<SkillFolder> folders, VersionSource source);

    /**
     * A new version of skill {@code name} with {@code bytes} at {@code path} (added, or replacing the file there), on
     * the live version the person reads; a SKILL.md creates the skill if there is none.
     *
     * @throws SkillException NOT_FOUND when the skill does not exist and {@code path} is not SKILL.md; INVALID or
     *                        TOO_LARGE when the folder it would make is not a valid one
     */
    Written putFile(SkillAccess who, String name, SkillPath path, byte[] bytes, VersionSource source);

    /**
     * A new version of skill {@code name} without the file at {@code path}.
     *
     * @throws SkillException NOT_FOUND when the skill or the file does not exist; INVALID for SKILL.md
     */
    Written removeFile(SkillAccess who, String name, SkillPath path, VersionSource source);

    /**
     * Deletes the person's skill {@code name}: a new version that holds no files. Its history stays, and a restore
     * brings it back.
     *
     * @return the deleting version, or empty when the person has no live skill of that name (a team skill is not
     *         theirs to delete)
     */
    Optional<SkillVersion> delete(SkillAccess who, String name, VersionSource source);

    /**
     * A new version of the person's skill {@code name} with the files of version {@code version} (of the library
     * {@link #history} reads): a restore, or an undelete when the skill is deleted.
     *
     * @throws SkillException NOT_FOUND when there is no such version; INVALID when it is a version that deleted the skill
     */
    Written restore(SkillAccess who, String name, int version, VersionSource source);

    /**
     * Copies the person's live skill {@code name} into the team library, as its new version there.
     *
     * @throws SkillException FORBIDDEN when {@code who} is no team admin; NOT_FOUND when they have no such skill
     */
    Written publish(SkillAccess who, String name, VersionSource source);

    /**
     * Deletes skill {@code name} from the team library (a new version there that holds no files).
     *
     * @throws SkillException FORBIDDEN when {@code who} is no team admin
     * @return the deleting version, or empty when the team library has no live skill of that name
     */
    Optional<SkillVersion> unpublish(SkillAccess who, String name, VersionSource source);
}
